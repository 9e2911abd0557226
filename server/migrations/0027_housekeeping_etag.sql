-- Two etags for a room (1.5.0, docs/housekeeping.md): Room.etag guards the room's data and
-- RoomHousekeeping.etag its housekeeping, so a housekeeping write no longer makes an
-- administrator's If-Match stale. rooms.version still counts every change of the row (the change
-- feed's etag of a ROOM change, unchanged); housekeeping_version counts the changes of its
-- housekeeping columns, and their difference is the room data's version (Room.etag): a write
-- changing both adds one to each part. Existing rows start at 0, so no Room.etag changes here.
-- Expand only: a column with a default and a replaced trigger function; a 1.4 server reads
-- version as before (its Room.etag still changes with housekeeping writes).
SET LOCAL lock_timeout = '5s';

ALTER TABLE rooms ADD COLUMN housekeeping_version bigint NOT NULL DEFAULT 0;

-- The housekeeping columns are listed: a new one belongs here too, or writes of it bump the room
-- data's version instead. housekeeping_return_condition is no state (migration 0020's trigger,
-- which runs before this one, resets it).
CREATE FUNCTION bump_room_versions() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  room_data rooms;
  housekeeping_changed boolean;
BEGIN
  IF NEW IS NOT DISTINCT FROM OLD THEN
    RETURN NEW;
  END IF;
  housekeeping_changed := (NEW.housekeeping_condition, NEW.housekeeping_occupancy, NEW.housekeeping_occupancy_source,
                           NEW.housekeeping_occupancy_observed_at, NEW.housekeeping_reason,
                           NEW.housekeeping_updated_by, NEW.housekeeping_updated_at,
                           NEW.housekeeping_observed_occupancy, NEW.housekeeping_observed_by,
                           NEW.housekeeping_observed_at, NEW.housekeeping_service_request,
                           NEW.housekeeping_cleaning_priority)
    IS DISTINCT FROM (OLD.housekeeping_condition, OLD.housekeeping_occupancy, OLD.housekeeping_occupancy_source,
                      OLD.housekeeping_occupancy_observed_at, OLD.housekeeping_reason,
                      OLD.housekeeping_updated_by, OLD.housekeeping_updated_at,
                      OLD.housekeeping_observed_occupancy, OLD.housekeeping_observed_by,
                      OLD.housekeeping_observed_at, OLD.housekeeping_service_request,
                      OLD.housekeeping_cleaning_priority);
  -- The new row with the old housekeeping and versions: what differs from the old row is room data.
  room_data := NEW;
  room_data.housekeeping_condition := OLD.housekeeping_condition;
  room_data.housekeeping_occupancy := OLD.housekeeping_occupancy;
  room_data.housekeeping_occupancy_source := OLD.housekeeping_occupancy_source;
  room_data.housekeeping_occupancy_observed_at := OLD.housekeeping_occupancy_observed_at;
  room_data.housekeeping_reason := OLD.housekeeping_reason;
  room_data.housekeeping_updated_by := OLD.housekeeping_updated_by;
  room_data.housekeeping_updated_at := OLD.housekeeping_updated_at;
  room_data.housekeeping_observed_occupancy := OLD.housekeeping_observed_occupancy;
  room_data.housekeeping_observed_by := OLD.housekeeping_observed_by;
  room_data.housekeeping_observed_at := OLD.housekeeping_observed_at;
  room_data.housekeeping_service_request := OLD.housekeeping_service_request;
  room_data.housekeeping_cleaning_priority := OLD.housekeeping_cleaning_priority;
  room_data.housekeeping_return_condition := OLD.housekeeping_return_condition;
  room_data.version := OLD.version;
  room_data.housekeeping_version := OLD.housekeeping_version;
  -- A writer's own bump of version (an image of the room changed: bump_image_owner_version,
  -- migration 0015) is a change of the room's data too, as bump_row_version counted it.
  NEW.version := OLD.version + (room_data IS DISTINCT FROM OLD OR NEW.version IS DISTINCT FROM OLD.version)::int
                 + housekeeping_changed::int;
  NEW.housekeeping_version := OLD.housekeeping_version + housekeeping_changed::int;
  RETURN NEW;
END
$$;

-- Same name, so the same place among the rows' BEFORE triggers (after rooms_back_in_order).
DROP TRIGGER rooms_bump_version ON rooms;
CREATE TRIGGER rooms_bump_version BEFORE UPDATE ON rooms
  FOR EACH ROW EXECUTE FUNCTION bump_room_versions();

-- The new version is bookkeeping, like version: never one of a change's changed_fields.
CREATE OR REPLACE FUNCTION change_bookkeeping_columns() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT ARRAY['version', 'updated_at', 'updated_by', 'request_id', 'request_hash', 'housekeeping_version'] $$;
