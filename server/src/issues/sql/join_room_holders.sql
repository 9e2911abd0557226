-- The room (locked by lock_room) was out of order already: the issue holds it too, which its
-- timeline records. $1 issue id, $2 actor.
INSERT INTO issue_events AS ev (issue_id, actor, type, from_value, to_value, note)
SELECT $1::uuid, $2, 'ROOM_OUT_OF_ORDER', 'false', 'true', 'Room was already out of order; this issue holds it too.'
RETURNING {{issue_event_columns}}
