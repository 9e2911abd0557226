-- The room overview's completions, newest first. $1 property, $2 room number, $3 limit.
{{completion_select}}
WHERE s.property_id = $1 AND s.room_number = $2
ORDER BY c.completed_at DESC, c.id DESC
LIMIT $3::int
