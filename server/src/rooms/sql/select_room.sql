-- $1 property id, $2 room number.
{{room_select}}
WHERE r.property_id = $1 AND r.number = $2
