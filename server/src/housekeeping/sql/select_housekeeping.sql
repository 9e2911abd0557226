-- The housekeeping of rooms as stored (a retried bulk set answers it). $1 property id, $2 room
-- numbers (text[]).
SELECT r.property_id, r.number, {{room_housekeeping_columns}}
FROM rooms r
WHERE r.property_id = $1 AND r.number = ANY ($2::text[])
