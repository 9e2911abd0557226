-- What housekeeping sees (1.5.0, docs/housekeeping-readiness.md): the occupancy housekeeping found
-- in a room (beside the PMS's), who found it and when; the guest's service request; the room's
-- cleaning priority; and the same in each history entry. A room's readiness and discrepancy are
-- derived when read, not stored: readiness depends on today's blocks and the property's policy.
-- Expand only: columns with constant defaults and a trigger function replaced in place (same
-- signature and trigger), so a 1.4 server keeps working on this schema (its writes leave the new
-- columns as they are, and its history rows carry them).
SET LOCAL lock_timeout = '5s';

ALTER TABLE rooms
  -- NULL until housekeeping has looked.
  ADD COLUMN housekeeping_observed_occupancy text CHECK (housekeeping_observed_occupancy IN ('VACANT', 'OCCUPIED')),
  ADD COLUMN housekeeping_observed_by text NOT NULL DEFAULT '',
  ADD COLUMN housekeeping_observed_at timestamptz,
  ADD COLUMN housekeeping_service_request text NOT NULL DEFAULT 'NONE'
    CHECK (housekeeping_service_request IN ('NONE', 'DO_NOT_DISTURB', 'MAKE_UP_ROOM', 'SERVICE_DECLINED')),
  -- 1 to 999, lower first; 0: none.
  ADD COLUMN housekeeping_cleaning_priority integer NOT NULL DEFAULT 0
    CHECK (housekeeping_cleaning_priority BETWEEN 0 AND 999);

ALTER TABLE room_housekeeping_history
  ADD COLUMN observed_occupancy text,
  ADD COLUMN service_request text NOT NULL DEFAULT 'NONE',
  ADD COLUMN cleaning_priority integer NOT NULL DEFAULT 0;

-- Migration 0020's function, the history row now carrying the new columns after the write.
CREATE OR REPLACE FUNCTION record_housekeeping() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO room_housekeeping_history (property_id, room_number, condition, occupancy, previous_condition,
                                         previous_occupancy, occupancy_source, occupancy_observed_at, reason,
                                         updated_by, updated_at, observed_occupancy, service_request,
                                         cleaning_priority)
  SELECT n.property_id, n.number, n.housekeeping_condition, n.housekeeping_occupancy, o.housekeeping_condition,
         o.housekeeping_occupancy, n.housekeeping_occupancy_source, n.housekeeping_occupancy_observed_at,
         n.housekeeping_reason, n.housekeeping_updated_by, n.housekeeping_updated_at,
         n.housekeeping_observed_occupancy, n.housekeeping_service_request, n.housekeeping_cleaning_priority
  FROM new_rooms n JOIN old_rooms o ON o.property_id = n.property_id AND o.number = n.number
  WHERE o.housekeeping_updated_at IS DISTINCT FROM n.housekeeping_updated_at
  ORDER BY n.property_id, n.number;
  RETURN NULL;
END
$$;

-- GetRoom's cache (rooms/room_cache.h) drops rooms when what it read changes: a room's readiness
-- now reads its blocks and its property's policy too (migration 0008's notification).
CREATE TRIGGER room_blocks_notify_room_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON room_blocks
  FOR EACH STATEMENT EXECUTE FUNCTION notify_room_data_changed();
CREATE TRIGGER housekeeping_policies_notify_room_data_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON housekeeping_policies
  FOR EACH STATEMENT EXECUTE FUNCTION notify_room_data_changed();
