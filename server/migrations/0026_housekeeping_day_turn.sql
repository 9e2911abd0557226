-- The housekeeping day turn (1.5.0, docs/housekeeping.md): when a property's local date turns,
-- its rooms take what its housekeeping policy (migration 0023) says the night does to them, each
-- once, whatever number of replicas run the pass: the same guarantee as the room blocks' daily
-- pass (migrations 0017 and 0018), with a table of its own. Expand only: a new table and new
-- functions; a 1.4 server never calls them.
SET LOCAL lock_timeout = '5s';

-- The last local date whose turn was applied to each property's rooms.
CREATE TABLE housekeeping_day_turns (
  property_id     text PRIMARY KEY REFERENCES properties (id) ON DELETE CASCADE,
  applied_through date NOT NULL
);

-- A property's date is recorded from its creation on (as the room blocks' pass does, migration
-- 0017), so the pass finds a row for every property and, on a day that has turned nowhere, writes
-- nothing: an idle service writes no WAL (tests/e2e/test_idle_wal.py). The pass still records a
-- property it finds without one.
INSERT INTO housekeeping_day_turns (property_id, applied_through)
SELECT id, (now() AT TIME ZONE time_zone)::date FROM properties;

CREATE FUNCTION housekeeping_day_turns_of_new_property() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO housekeeping_day_turns (property_id, applied_through)
  VALUES (NEW.id, (now() AT TIME ZONE NEW.time_zone)::date)
  ON CONFLICT (property_id) DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER properties_housekeeping_day_turns AFTER INSERT ON properties
  FOR EACH ROW EXECUTE FUNCTION housekeeping_day_turns_of_new_property();

-- What the day turn does to one room, a pure function of the room and its property's policy: the
-- condition it takes and why, or no row when it stays as it is. Rooms out of order keep their
-- condition (they take their return condition when they come back); occupancy UNKNOWN changes
-- nothing. untouched_days: local dates since the room's last housekeeping write other than a day
-- turn's (NULL when not asked: only for vacant rooms, not DIRTY, when the policy counts days).
CREATE FUNCTION housekeeping_day_turn_plan(room_condition text, room_occupancy text, in_order boolean,
                                           untouched_days integer, occupied_nightly_condition text,
                                           vacant_nightly_downgrade text, vacant_dirty_after_days integer)
  RETURNS TABLE (condition text, reason text) LANGUAGE sql IMMUTABLE AS $$
  SELECT rule.condition, 'Day turn: ' || rule.why
  FROM (SELECT 1 AS rank, 'DIRTY' AS condition, 'occupied, DIRTY by the housekeeping policy' AS why
        WHERE room_occupancy = 'OCCUPIED' AND occupied_nightly_condition = 'DIRTY'
        UNION ALL
        SELECT 2, 'DIRTY', format('vacant and untouched for %s day%s, DIRTY by the housekeeping policy',
                                  untouched_days, CASE WHEN untouched_days = 1 THEN '' ELSE 's' END)
        WHERE room_occupancy = 'VACANT' AND vacant_dirty_after_days > 0 AND untouched_days >= vacant_dirty_after_days
        UNION ALL
        SELECT 3, 'CLEAN', 'vacant, INSPECTED to CLEAN by the housekeeping policy'
        WHERE room_occupancy = 'VACANT' AND vacant_nightly_downgrade = 'INSPECTED_TO_CLEAN'
          AND room_condition = 'INSPECTED') AS rule
  WHERE in_order AND room_condition <> 'DIRTY'
  ORDER BY rule.rank LIMIT 1 $$;

-- The day turn at instant `at`: the properties whose local date at `at` is later than the one
-- applied. Their date is upserted in id order and one replica wins each date; the others (waiting
-- for its commit) find it applied and change nothing, so each room changes once. A property
-- without a date (none, with the rows above) only has it recorded: its first turn is at its next
-- midnight, never in the middle of a day. Several dates turned at once (the
-- service was down) are one turn. The rooms are locked in number order first, as the housekeeping
-- writes lock them, so the turn and a bulk set queue and never deadlock, and the plan reads each
-- room as it is once locked. One update for all rooms (set-based, the triggers of migrations
-- 0020 and 0022 write one history entry and one ROOM change per room, by "system").
-- plpgsql for its cached plans; without JIT for the reason of 0018's pass.
CREATE FUNCTION apply_housekeeping_day_turn(at timestamptz) RETURNS bigint LANGUAGE plpgsql
  SET jit = off AS $$
DECLARE
  turned_properties text[];
  changed bigint;
BEGIN
  IF NOT EXISTS (SELECT FROM properties p LEFT JOIN housekeeping_day_turns t ON t.property_id = p.id
                 WHERE t.applied_through IS NULL OR t.applied_through < (at AT TIME ZONE p.time_zone)::date) THEN
    RETURN 0;
  END IF;
  WITH due AS (
    SELECT p.id AS property_id, (at AT TIME ZONE p.time_zone)::date AS today, t.applied_through
    FROM properties p LEFT JOIN housekeeping_day_turns t ON t.property_id = p.id
    WHERE t.applied_through IS NULL OR t.applied_through < (at AT TIME ZONE p.time_zone)::date),
  turned AS (
    INSERT INTO housekeeping_day_turns AS t (property_id, applied_through)
    SELECT property_id, today FROM due ORDER BY property_id
    ON CONFLICT (property_id) DO UPDATE SET applied_through = EXCLUDED.applied_through
      WHERE t.applied_through < EXCLUDED.applied_through
    RETURNING t.property_id)
  SELECT array_agg(due.property_id ORDER BY due.property_id) INTO turned_properties
  FROM turned JOIN due USING (property_id) WHERE due.applied_through IS NOT NULL;
  IF turned_properties IS NULL THEN
    RETURN 0;
  END IF;

  PERFORM FROM rooms r WHERE r.property_id = ANY (turned_properties) AND r.retired_at IS NULL
  ORDER BY r.property_id, r.number FOR UPDATE;

  PERFORM set_config('hotel.actor', 'system', true);
  -- A fresh snapshot (a new statement): the rooms as they are, now that they are locked.
  WITH planned AS (
    SELECT r.property_id, r.number, plan.condition, plan.reason
    FROM rooms r
    JOIN properties p ON p.id = r.property_id
    LEFT JOIN housekeeping_policies hp ON hp.property_id = r.property_id
    LEFT JOIN LATERAL housekeeping_day_turn_plan(
      r.housekeeping_condition, r.housekeeping_occupancy, NOT r.out_of_order,
      -- Asked only when it counts: a room whose last write was a day turn's looks for the last
      -- write before it (the turn's own writes do not touch the room).
      CASE WHEN r.housekeeping_occupancy = 'VACANT' AND r.housekeeping_condition <> 'DIRTY'
                AND coalesce(hp.vacant_dirty_after_days, 0) > 0
           THEN (at AT TIME ZONE p.time_zone)::date - (coalesce(
                  CASE WHEN NOT (r.housekeeping_updated_by = 'system' AND r.housekeeping_reason LIKE 'Day turn:%')
                       THEN r.housekeeping_updated_at END,
                  (SELECT h.updated_at FROM room_housekeeping_history h
                   WHERE h.property_id = r.property_id AND h.room_number = r.number
                     AND NOT (h.updated_by = 'system' AND h.reason LIKE 'Day turn:%')
                   ORDER BY h.id DESC LIMIT 1),
                  r.housekeeping_updated_at) AT TIME ZONE p.time_zone)::date END,
      coalesce(hp.occupied_nightly_condition, 'DIRTY'), coalesce(hp.vacant_nightly_downgrade, 'NONE'),
      coalesce(hp.vacant_dirty_after_days, 0)) AS plan ON true
    WHERE r.property_id = ANY (turned_properties) AND r.retired_at IS NULL
      -- A guest service request (migration 0025) is for one day: it clears, and a room with one
      -- and no plan keeps its condition.
      AND (plan.condition IS NOT NULL OR r.housekeeping_service_request <> 'NONE')),
  written AS (
    UPDATE rooms r
    SET housekeeping_condition = coalesce(planned.condition, r.housekeeping_condition),
        housekeeping_reason = coalesce(planned.reason, 'Day turn: guest service request cleared'),
        housekeeping_service_request = 'NONE',
        housekeeping_updated_by = 'system',
        housekeeping_updated_at = clock_timestamp()
    FROM planned
    WHERE r.property_id = planned.property_id AND r.number = planned.number
    RETURNING 1)
  SELECT count(*) INTO changed FROM written;
  RETURN changed;
END
$$;
