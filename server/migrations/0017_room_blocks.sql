-- Room blocks (1.3.0, docs/room-blocks.md): a room out of order (not sellable) or out of service
-- (sellable, with a note) for a range of its property's local dates, start_date inclusive,
-- end_date exclusive (NULL: no end yet). Nothing is deleted: a block is cancelled.
-- New table and a wider change-log type check only.
SET LOCAL lock_timeout = '5s';

-- The overlap rule below compares text columns with = inside a GiST exclusion constraint. A
-- trusted extension since PostgreSQL 13: the database's owner (the migration role) may create it.
CREATE EXTENSION btree_gist;

CREATE TABLE room_blocks (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  property_id  text NOT NULL REFERENCES properties (id),
  room_number  text COLLATE "C" NOT NULL,
  type         text NOT NULL CHECK (type IN ('OUT_OF_ORDER', 'OUT_OF_SERVICE')),
  start_date   date NOT NULL,
  end_date     date,
  reason       text NOT NULL DEFAULT '' CHECK (length(reason) <= 5000),
  issue_id     uuid REFERENCES issues (id),
  -- API: created through RoomBlockService; ISSUE: opened by an issue that holds its room out of
  -- order (several issues may hold one room, so those blocks are exempt from the overlap rule).
  origin       text NOT NULL DEFAULT 'API' CHECK (origin IN ('API', 'ISSUE')),
  status       text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'CANCELLED')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  updated_by   text NOT NULL DEFAULT '',
  cancelled_at timestamptz,
  version      bigint NOT NULL DEFAULT 1,
  request_id   text UNIQUE,
  request_hash text,
  FOREIGN KEY (property_id, room_number) REFERENCES rooms (property_id, number),
  CHECK (end_date IS NULL OR end_date > start_date),
  -- Two active OUT_OF_ORDER blocks of one room never share a date, whoever writes them and however
  -- many at once: the loser of a race waits for the winner's commit and fails with 23P01.
  CONSTRAINT room_blocks_out_of_order_overlap EXCLUDE USING gist (
    property_id WITH =, room_number WITH =, daterange(start_date, end_date) WITH &&)
    WHERE (type = 'OUT_OF_ORDER' AND status = 'ACTIVE' AND origin = 'API')
);
-- List order: by start date within a property (and a room).
CREATE INDEX room_blocks_list ON room_blocks (property_id, start_date, id);
CREATE INDEX room_blocks_room ON room_blocks (property_id, room_number, start_date, id);
-- Availability: the active blocks of a property that overlap a range of dates.
CREATE INDEX room_blocks_active_dates ON room_blocks USING gist (property_id, daterange(start_date, end_date))
  WHERE status = 'ACTIVE';
CREATE INDEX room_blocks_issue ON room_blocks (issue_id) WHERE issue_id IS NOT NULL;

CREATE TRIGGER room_blocks_bump_version BEFORE UPDATE ON room_blocks
  FOR EACH ROW EXECUTE FUNCTION bump_row_version();
CREATE TRIGGER room_blocks_stage_change AFTER INSERT OR UPDATE OR DELETE ON room_blocks
  FOR EACH ROW EXECUTE FUNCTION stage_change('ROOM_BLOCK');

-- The change log takes the new resource type. NOT VALID: the rows already there were checked by
-- the narrower rule; only new rows need this one.
ALTER TABLE change_log DROP CONSTRAINT change_log_resource_type_check;
ALTER TABLE change_log ADD CONSTRAINT change_log_resource_type_check
  CHECK (resource_type IN ('PROPERTY', 'ROOM_TYPE', 'ROOM', 'IMAGE', 'EQUIPMENT', 'SCHEDULE', 'ISSUE', 'ROOM_BLOCK'))
  NOT VALID;

-- Room.available (rooms.out_of_order) follows the blocks too: a room is out of order while an
-- issue holds it or an active OUT_OF_ORDER block covers its property's date today. Block writes
-- refresh their room at once; the date turning is applied by apply_room_block_transitions().

-- The reason of the active OUT_OF_ORDER block (created through the API) covering the room on its
-- property's local date of instant `at`; NULL when none does.
CREATE FUNCTION room_block_reason_at(room_property_id text, room_number text, at timestamptz)
  RETURNS text LANGUAGE sql STABLE AS $$
  SELECT 'Room block: ' || coalesce(nullif(b.reason, ''), 'out of order')
  FROM room_blocks b JOIN properties p ON p.id = b.property_id
  WHERE b.property_id = room_property_id AND b.room_number = room_block_reason_at.room_number
    AND b.type = 'OUT_OF_ORDER' AND b.status = 'ACTIVE' AND b.origin = 'API'
    AND b.start_date <= (at AT TIME ZONE p.time_zone)::date
    AND (b.end_date IS NULL OR b.end_date > (at AT TIME ZONE p.time_zone)::date)
  ORDER BY b.start_date, b.id LIMIT 1 $$;

-- Whether a room is held out of order at instant `at`, and why: its earliest holding issue, else
-- its block (room_block_reason_at).
CREATE FUNCTION room_out_of_order_at(room_property_id text, room_number text, at timestamptz)
  RETURNS TABLE (held boolean, reason text) LANGUAGE sql STABLE AS $$
  WITH why AS (
    SELECT coalesce(
      (SELECT 'Maintenance issue: ' || i.title FROM issues i
       WHERE i.property_id = room_property_id AND i.room_number = room_out_of_order_at.room_number
         AND i.take_room_out_of_order
       ORDER BY i.created_at, i.id LIMIT 1),
      room_block_reason_at(room_property_id, room_out_of_order_at.room_number, at)) AS reason)
  SELECT reason IS NOT NULL, coalesce(reason, '') FROM why $$;

-- Brings the named rooms of a property to the out-of-order state that holds at `at`, in one
-- statement; returns how many changed (each update is a ROOM change on the feed, and the room
-- caches are told by migration 0008's trigger).
CREATE FUNCTION refresh_rooms_out_of_order(room_property_id text, room_numbers text[], at timestamptz)
  RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  changed bigint;
BEGIN
  WITH want AS (
    SELECT n.number, w.held, w.reason
    FROM unnest(room_numbers) AS n (number) CROSS JOIN LATERAL room_out_of_order_at(room_property_id, n.number, at) AS w)
  UPDATE rooms r
  SET out_of_order = want.held,
      out_of_order_reason = CASE WHEN NOT want.held THEN '' WHEN r.out_of_order THEN r.out_of_order_reason
                                 ELSE want.reason END,
      out_of_order_since = CASE WHEN NOT want.held THEN NULL WHEN r.out_of_order THEN r.out_of_order_since
                                ELSE at END
  FROM want
  WHERE r.property_id = room_property_id AND r.number = want.number AND r.out_of_order IS DISTINCT FROM want.held;
  GET DIAGNOSTICS changed = ROW_COUNT;
  RETURN changed;
END
$$;

-- Per property: the local date whose block starts and ends are applied to its rooms.
CREATE TABLE room_block_transitions (
  property_id     text PRIMARY KEY REFERENCES properties (id) ON DELETE CASCADE,  -- goes with its property
  applied_through date NOT NULL
);

-- A property's date is applied from its creation on (blocks written later refresh their room at
-- once), so the pass finds a row for every property and, on a day that has turned nowhere, writes
-- nothing: an idle service writes no WAL (tests/e2e/test_idle_wal.py).
INSERT INTO room_block_transitions (property_id, applied_through)
SELECT id, (now() AT TIME ZONE time_zone)::date FROM properties;

CREATE FUNCTION room_block_transitions_of_new_property() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO room_block_transitions (property_id, applied_through)
  VALUES (NEW.id, (now() AT TIME ZONE NEW.time_zone)::date)
  ON CONFLICT (property_id) DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER properties_room_block_transitions AFTER INSERT ON properties
  FOR EACH ROW EXECUTE FUNCTION room_block_transitions_of_new_property();

-- The daily pass: for every property whose local date at `at` is later than the one applied,
-- records the new date and refreshes the rooms with blocks, in one transaction. Any number of
-- replicas may run it at once: the upsert of a property's row lets one of them through per date
-- (the others wait for its commit, then find the date applied), so each start or end of a block
-- changes its room, and reaches the feed, exactly once. Returns the number of rooms changed.
CREATE FUNCTION apply_room_block_transitions(at timestamptz) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  property record;
  changed  bigint := 0;
BEGIN
  -- Only the properties whose date has turned: reading the others locks and writes nothing.
  FOR property IN
    SELECT p.id, (at AT TIME ZONE p.time_zone)::date AS today
    FROM properties p LEFT JOIN room_block_transitions t ON t.property_id = p.id
    WHERE t.applied_through IS NULL OR t.applied_through < (at AT TIME ZONE p.time_zone)::date
    ORDER BY p.id
  LOOP
    INSERT INTO room_block_transitions AS t (property_id, applied_through) VALUES (property.id, property.today)
    ON CONFLICT (property_id) DO UPDATE SET applied_through = EXCLUDED.applied_through
      WHERE t.applied_through < EXCLUDED.applied_through;
    IF NOT FOUND THEN
      CONTINUE;
    END IF;
    changed := changed + refresh_rooms_out_of_order(property.id, ARRAY(
      SELECT DISTINCT b.room_number FROM room_blocks b
      WHERE b.property_id = property.id AND b.type = 'OUT_OF_ORDER' AND b.origin = 'API'), at);
  END LOOP;
  RETURN changed;
END
$$;
