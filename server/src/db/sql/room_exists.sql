-- $1 property id, $2 room number. One row per existing property: its time zone, and the room's
-- number or NULL when the property has no such room.
SELECT p.time_zone, r.number
FROM properties p
LEFT JOIN rooms r ON r.property_id = p.id AND r.number = $2
WHERE p.id = $1
