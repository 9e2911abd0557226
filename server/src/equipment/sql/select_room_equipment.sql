-- The room overview's equipment, oldest first. $1 property, $2 room number, $3 limit.
{{equipment_select}}
WHERE e.property_id = $1 AND e.room_number = $2
ORDER BY e.created_at, e.id
LIMIT $3::int
