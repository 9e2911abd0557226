-- Row versions of properties, room types and rooms: the etag of each (room data management and the
-- change feed both read them). Bumped by a trigger on every change to the row, so no write path can
-- forget it; a row rewritten with the same values keeps its version.
CREATE FUNCTION bump_row_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW IS DISTINCT FROM OLD THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END
$$;

ALTER TABLE properties ADD COLUMN version bigint NOT NULL DEFAULT 1;
ALTER TABLE room_types ADD COLUMN version bigint NOT NULL DEFAULT 1;
ALTER TABLE rooms ADD COLUMN version bigint NOT NULL DEFAULT 1;

CREATE TRIGGER properties_bump_version BEFORE UPDATE ON properties
  FOR EACH ROW EXECUTE FUNCTION bump_row_version();
CREATE TRIGGER room_types_bump_version BEFORE UPDATE ON room_types
  FOR EACH ROW EXECUTE FUNCTION bump_row_version();
CREATE TRIGGER rooms_bump_version BEFORE UPDATE ON rooms
  FOR EACH ROW EXECUTE FUNCTION bump_row_version();
