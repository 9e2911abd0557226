-- Housekeeping (1.4.0, docs/housekeeping.md): each room's condition (DIRTY, CLEAN, INSPECTED) and
-- occupancy (VACANT, OCCUPIED, UNKNOWN: input from a PMS, with its source and observation time),
-- who set them, when and why; a history of every housekeeping write; and the condition a room
-- returns to when it comes back in order. Expand only: columns with defaults, a new table and
-- triggers, so a 1.3 server keeps working on this schema (its rooms come back in order DIRTY).
SET LOCAL lock_timeout = '5s';

-- Rooms existing now have never been inspected by this service and no PMS has told it who is in
-- them: DIRTY and UNKNOWN, by nobody, at the migration's time.
ALTER TABLE rooms
  ADD COLUMN housekeeping_condition text NOT NULL DEFAULT 'DIRTY'
    CHECK (housekeeping_condition IN ('DIRTY', 'CLEAN', 'INSPECTED')),
  ADD COLUMN housekeeping_occupancy text NOT NULL DEFAULT 'UNKNOWN'
    CHECK (housekeeping_occupancy IN ('VACANT', 'OCCUPIED', 'UNKNOWN')),
  ADD COLUMN housekeeping_occupancy_source text NOT NULL DEFAULT '',
  ADD COLUMN housekeeping_occupancy_observed_at timestamptz,
  ADD COLUMN housekeeping_reason text NOT NULL DEFAULT '',
  ADD COLUMN housekeeping_updated_by text NOT NULL DEFAULT '',
  ADD COLUMN housekeeping_updated_at timestamptz NOT NULL DEFAULT now(),
  -- Set only by the statement that brings the room back in order, for the trigger below: the
  -- condition its holder names (an issue's). Always NULL once that statement is done.
  ADD COLUMN housekeeping_return_condition text
    CHECK (housekeeping_return_condition IN ('DIRTY', 'CLEAN', 'INSPECTED'));

-- The condition a room goes to when the block or issue that held it out of order lets it go.
ALTER TABLE room_blocks ADD COLUMN return_condition text NOT NULL DEFAULT 'DIRTY'
  CHECK (return_condition IN ('DIRTY', 'CLEAN', 'INSPECTED'));
ALTER TABLE issues ADD COLUMN return_condition text NOT NULL DEFAULT 'DIRTY'
  CHECK (return_condition IN ('DIRTY', 'CLEAN', 'INSPECTED'));

-- Every housekeeping write, one row per room written, in the order the room's row lock gave them.
CREATE TABLE room_housekeeping_history (
  id                      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  property_id             text NOT NULL,
  room_number             text COLLATE "C" NOT NULL,
  condition               text NOT NULL,
  occupancy               text NOT NULL,
  previous_condition      text NOT NULL,
  previous_occupancy      text NOT NULL,
  occupancy_source        text NOT NULL,
  occupancy_observed_at   timestamptz,
  reason                  text NOT NULL,
  updated_by              text NOT NULL,
  updated_at              timestamptz NOT NULL,
  FOREIGN KEY (property_id, room_number) REFERENCES rooms (property_id, number)
);
-- A room's history, newest first.
CREATE INDEX room_housekeeping_history_room ON room_housekeeping_history (property_id, room_number, id DESC);

-- The bulk sets' request ids (SetHousekeeping is idempotent by request_id, as every create).
CREATE TABLE housekeeping_requests (
  request_id   text PRIMARY KEY,
  request_hash text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);

-- The strictest of conditions a room may return to: DIRTY before CLEAN before INSPECTED.
CREATE FUNCTION strictest_condition(conditions text[]) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT c FROM unnest(conditions) AS c WHERE c IS NOT NULL
  ORDER BY array_position(ARRAY['DIRTY', 'CLEAN', 'INSPECTED'], c) LIMIT 1 $$;

-- A room coming back in order (out_of_order true to false, whatever the writer: the blocks' daily
-- pass, a block's cancel or new dates, an issue letting it go, a 1.3 server) takes the strictest
-- return condition of what held it: the OUT_OF_ORDER blocks of the API that covered a date since it
-- went out of order (cancelled ones too, if cancelled since), and the condition the writer names
-- (an issue's, in housekeeping_return_condition); DIRTY when none names one. The flip happens once
-- per time out of order, so the condition is applied once.
CREATE FUNCTION return_room_to_condition() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  since_day date;
  today     date;
BEGIN
  IF OLD.out_of_order AND NOT NEW.out_of_order THEN
    SELECT (coalesce(OLD.out_of_order_since, now()) AT TIME ZONE p.time_zone)::date, (now() AT TIME ZONE p.time_zone)::date
      INTO since_day, today FROM properties p WHERE p.id = NEW.property_id;
    NEW.housekeeping_condition := coalesce(strictest_condition(NEW.housekeeping_return_condition || ARRAY(
      SELECT b.return_condition FROM room_blocks b
      WHERE b.property_id = NEW.property_id AND b.room_number = NEW.number AND b.type = 'OUT_OF_ORDER'
        AND b.origin = 'API' AND b.start_date <= today AND (b.end_date IS NULL OR b.end_date > since_day)
        AND (b.status = 'ACTIVE' OR b.cancelled_at >= OLD.out_of_order_since))), 'DIRTY');
    NEW.housekeeping_updated_by := coalesce(nullif(current_setting('hotel.actor', true), ''), 'system');
    NEW.housekeeping_updated_at := now();
    NEW.housekeeping_reason := left('Back in order: ' || OLD.out_of_order_reason, 500);
  END IF;
  NEW.housekeeping_return_condition := NULL;
  RETURN NEW;
END
$$;
-- Only for a row coming back in order, or one whose writer named a return condition (then reset).
CREATE TRIGGER rooms_back_in_order BEFORE UPDATE ON rooms
  FOR EACH ROW WHEN (OLD.out_of_order AND NOT NEW.out_of_order OR NEW.housekeeping_return_condition IS NOT NULL)
  EXECUTE FUNCTION return_room_to_condition();

-- One history row per housekeeping write (each write sets housekeeping_updated_at), for all the
-- rows of a statement in one insert: a bulk set of 1,000 rooms is one statement.
CREATE FUNCTION record_housekeeping() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO room_housekeeping_history (property_id, room_number, condition, occupancy, previous_condition,
                                         previous_occupancy, occupancy_source, occupancy_observed_at, reason,
                                         updated_by, updated_at)
  SELECT n.property_id, n.number, n.housekeeping_condition, n.housekeeping_occupancy, o.housekeeping_condition,
         o.housekeeping_occupancy, n.housekeeping_occupancy_source, n.housekeeping_occupancy_observed_at,
         n.housekeeping_reason, n.housekeeping_updated_by, n.housekeeping_updated_at
  FROM new_rooms n JOIN old_rooms o ON o.property_id = n.property_id AND o.number = n.number
  WHERE o.housekeeping_updated_at IS DISTINCT FROM n.housekeeping_updated_at
  ORDER BY n.property_id, n.number;
  RETURN NULL;
END
$$;
CREATE TRIGGER rooms_record_housekeeping AFTER UPDATE ON rooms
  REFERENCING OLD TABLE AS old_rooms NEW TABLE AS new_rooms
  FOR EACH STATEMENT EXECUTE FUNCTION record_housekeeping();
