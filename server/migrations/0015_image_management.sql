-- Images managed through the API (issue 31, 1.3.0, docs/images.md#managing-images): each image
-- gets a row version (its etag), every change to a gallery gives the room type or room that shows
-- it a new version (their etags cover the gallery), and the files a removed image leaves behind
-- are recorded for the object store's garbage collection. Expand only: a column with a constant
-- default (no rewrite), a new table, new triggers; a server of the previous release never writes
-- images and reads galleries as before.
SET LOCAL lock_timeout = '5s';

ALTER TABLE images ADD COLUMN version bigint NOT NULL DEFAULT 1;
CREATE TRIGGER images_bump_version BEFORE UPDATE ON images
  FOR EACH ROW EXECUTE FUNCTION bump_row_version();

-- Inserting, changing or deleting an image bumps the version of its owner (the room type or the
-- room), whatever the write path (API, upload, hotel-images ingest and seed, psql): their detail
-- responses embed the gallery, so their etags must change with it, and the room cache is told
-- (room_data_changed) on commit. Only the version moves: the change feed ignores a version-only
-- update, so a gallery change is on the feed once, as its IMAGE change. Writers lock the owner
-- first (docs/performance.md#lock-order), so this update never waits in a cycle.
CREATE FUNCTION bump_image_owner_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  image images%ROWTYPE;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.version = OLD.version THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    image := OLD;
  ELSE
    image := NEW;
  END IF;
  IF image.room_type_id IS NOT NULL THEN
    UPDATE room_types SET version = version + 1 WHERE id = image.room_type_id;
  ELSE
    UPDATE rooms SET version = version + 1 WHERE property_id = image.property_id AND number = image.room_number;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER images_bump_owner_version AFTER INSERT OR UPDATE OR DELETE ON images
  FOR EACH ROW EXECUTE FUNCTION bump_image_owner_version();

-- A removed image is deleted at once (its files' rows go with it, ON DELETE CASCADE); its stored
-- files stay on the object store, each key recorded here with the time it was released. The
-- store's garbage collection deletes a released key's object only once released_at is older than
-- the grace period (pages and CDNs that cached the URL keep working meanwhile) and no image_files
-- row uses the key any more (content-addressed keys are shared by every image with the same
-- bytes), then deletes its rows here. Filled by a trigger, so every delete path records its keys.
CREATE TABLE image_files_released (
  storage_key text NOT NULL,
  released_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX image_files_released_at ON image_files_released (released_at);

CREATE FUNCTION release_image_file() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO image_files_released (storage_key) VALUES (OLD.storage_key);
  RETURN NULL;
END
$$;
CREATE TRIGGER image_files_release AFTER DELETE ON image_files
  FOR EACH ROW EXECUTE FUNCTION release_image_file();
