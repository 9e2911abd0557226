-- Takes the room (locked by lock_room, found in service) out of order for the issue and records
-- it on the issue's timeline. $1 property, $2 room, $3 reason, $4 issue id, $5 actor.
WITH room AS (
  UPDATE rooms SET out_of_order = true, out_of_order_reason = $3, out_of_order_since = now()
  WHERE property_id = $1 AND number = $2)
INSERT INTO issue_events AS ev (issue_id, actor, type, from_value, to_value, note)
SELECT $4::uuid, $5, 'ROOM_OUT_OF_ORDER', 'false', 'true', 'Room taken out of order.'
RETURNING {{issue_event_columns}}
