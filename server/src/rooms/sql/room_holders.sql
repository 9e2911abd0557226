-- $1 property id, $2 room number. The open issues holding the room out of order, oldest first.
SELECT id::text AS name FROM issues WHERE property_id = $1 AND room_number = $2 AND take_room_out_of_order
ORDER BY created_at, id
