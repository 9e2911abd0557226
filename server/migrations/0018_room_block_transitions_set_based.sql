-- The room blocks' daily pass (migration 0017's apply_room_block_transitions) in one statement,
-- touching only the rooms whose OUT_OF_ORDER blocks start or end on a date that turned
-- (docs/performance.md, "Room blocks"): 0017's loop refreshed, per property whose date turned,
-- every room that had ever had such a block. Same signature, result and guarantees: the
-- properties' rows are upserted in id order and one replica wins each date, the others (waiting
-- for its commit) find it applied and change nothing, so each start or end changes its room once.
-- Replaces two functions only.
SET LOCAL lock_timeout = '5s';

-- 0017's room_out_of_order_at with the block's reason (0017's room_block_reason_at) written in
-- it: a call of a scalar SQL function with a subquery is never inlined, and planned again at
-- every call (0.8 ms a room, most of the pass's time); this table function is inlined into its
-- callers (the pass, and the block writes' refresh_rooms_out_of_order) and planned with them.
-- The property's local date is read first, so the room's blocks are an index range of
-- room_blocks_room; the collations are the columns' (a caller passing a property id and a room
-- number, of different collations, left them undetermined, which no index matched). MATERIALIZED: the reason is looked up once, though read twice.
-- room_block_reason_at stays (nothing calls it now; dropping it is for a later release).
CREATE OR REPLACE FUNCTION room_out_of_order_at(room_property_id text, room_number text, at timestamptz)
  RETURNS TABLE (held boolean, reason text) LANGUAGE sql STABLE AS $$
  WITH why AS MATERIALIZED (
    SELECT coalesce(
      (SELECT 'Maintenance issue: ' || i.title FROM issues i
       WHERE i.property_id = room_property_id COLLATE "default"
         AND i.room_number = room_out_of_order_at.room_number COLLATE "C"
         AND i.take_room_out_of_order
       ORDER BY i.created_at, i.id LIMIT 1),
      (SELECT 'Room block: ' || coalesce(nullif(b.reason, ''), 'out of order')
       FROM room_blocks b
       WHERE b.property_id = room_property_id COLLATE "default"
         AND b.room_number = room_out_of_order_at.room_number COLLATE "C"
         AND b.type = 'OUT_OF_ORDER' AND b.status = 'ACTIVE' AND b.origin = 'API'
         AND b.start_date <= property_date.day AND (b.end_date IS NULL OR b.end_date > property_date.day)
       ORDER BY b.start_date, b.id LIMIT 1)) AS reason
    FROM (SELECT (SELECT (at AT TIME ZONE p.time_zone)::date FROM properties p WHERE p.id = room_property_id) AS day)
      AS property_date)
  SELECT reason IS NOT NULL, coalesce(reason, '') FROM why $$;

-- plpgsql for its cached plan (an SQL function is planned at every call, and the pass runs every
-- few seconds): an idle call reads the properties' dates and returns. Without JIT: the planner
-- cannot know how few properties turn at once, and compiling the statement cost more than
-- running it (0.3 s for 2,000 rooms).
CREATE OR REPLACE FUNCTION apply_room_block_transitions(at timestamptz) RETURNS bigint LANGUAGE plpgsql
  SET jit = off AS $$
DECLARE
  changed bigint;
BEGIN
  IF NOT EXISTS (SELECT FROM properties p LEFT JOIN room_block_transitions t ON t.property_id = p.id
                 WHERE t.applied_through IS NULL OR t.applied_through < (at AT TIME ZONE p.time_zone)::date) THEN
    RETURN 0;
  END IF;
  -- The properties whose local date at `at` is later than the one applied, with the one applied
  -- (NULL: none yet).
  WITH due AS (
    SELECT p.id AS property_id, (at AT TIME ZONE p.time_zone)::date AS today, t.applied_through
    FROM properties p LEFT JOIN room_block_transitions t ON t.property_id = p.id
    WHERE t.applied_through IS NULL OR t.applied_through < (at AT TIME ZONE p.time_zone)::date),
  -- The ones this call applies: a replica that lost the race gets none back.
  turned AS (
    INSERT INTO room_block_transitions AS t (property_id, applied_through)
    SELECT property_id, today FROM due ORDER BY property_id
    ON CONFLICT (property_id) DO UPDATE SET applied_through = EXCLUDED.applied_through
      WHERE t.applied_through < EXCLUDED.applied_through
    RETURNING t.property_id),
  -- Their rooms that may flip: an active OUT_OF_ORDER block (created through the API; issues hold
  -- their rooms themselves) starts or ends on a date after the one applied, up to today. Per
  -- property (OFFSET 0: a range of the date index each, not a scan of every block), the blocks
  -- covering a date from the one applied to today, then those starting or ending among them. No
  -- date applied: every date up to today.
  flipping AS (
    SELECT DISTINCT due.property_id, b.room_number
    FROM turned JOIN due USING (property_id)
    CROSS JOIN LATERAL (
      SELECT b.room_number FROM room_blocks b
      WHERE b.property_id = due.property_id AND b.type = 'OUT_OF_ORDER' AND b.status = 'ACTIVE' AND b.origin = 'API'
        AND daterange(b.start_date, b.end_date) && daterange(due.applied_through, due.today, '[]')
        AND (b.start_date > coalesce(due.applied_through, '-infinity') AND b.start_date <= due.today
             OR b.end_date > coalesce(due.applied_through, '-infinity') AND b.end_date <= due.today)
      OFFSET 0) AS b)
  -- Each turned property's rooms brought to their state at `at` by 0017's refresh (one update,
  -- each a ROOM change on the feed; the room caches are told by migration 0008's trigger).
  SELECT coalesce(sum(refresh_rooms_out_of_order(per_property.property_id, per_property.rooms, at)), 0) INTO changed
  FROM (SELECT property_id, array_agg(room_number) AS rooms FROM flipping GROUP BY property_id) AS per_property;
  RETURN changed;
END
$$;
