-- The issue no longer holds the room (locked by lock_room): it stays out of order while another
-- issue holds it, and then names that issue (the earliest holder), or while a room block covers
-- today (1.3.0, room_block_reason_at); otherwise it returns to service. The issue's timeline
-- records which. Back in order, the room takes the issue's return condition (migration 0020's
-- trigger). $1 property, $2 room, $3 issue id, $4 actor.
WITH holder AS (
  SELECT id, title FROM issues
  WHERE property_id = $1 AND room_number = $2 AND take_room_out_of_order AND id <> $3::uuid
  ORDER BY created_at, id LIMIT 1),
blocked AS (SELECT room_block_reason_at($1, $2, now()) AS reason),
held AS (SELECT EXISTS (SELECT 1 FROM holder) OR (SELECT reason FROM blocked) IS NOT NULL AS held),
room AS (
  UPDATE rooms
  SET out_of_order = (SELECT held FROM held),
      out_of_order_reason = coalesce((SELECT 'Maintenance issue: ' || title FROM holder), (SELECT reason FROM blocked),
                                     ''),
      out_of_order_since = CASE WHEN (SELECT held FROM held) THEN out_of_order_since END,
      housekeeping_return_condition = (SELECT return_condition FROM issues WHERE id = $3::uuid)
  WHERE property_id = $1 AND number = $2)
INSERT INTO issue_events AS ev (issue_id, actor, type, from_value, to_value, note)
SELECT $3::uuid, $4, 'ROOM_BACK_IN_SERVICE', 'true', 'false',
       coalesce((SELECT 'Room stays out of order: issue ' || id || ' still holds it.' FROM holder),
                (SELECT 'Room stays out of order: ' || reason || '.' FROM blocked WHERE reason IS NOT NULL),
                'Room returned to service.')
RETURNING {{issue_event_columns}}
