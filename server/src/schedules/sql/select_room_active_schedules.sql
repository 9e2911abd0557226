-- The room overview's active schedules, next due first. $1 property, $2 room number, $3 limit.
{{schedule_select}}
WHERE s.property_id = $1 AND s.room_number = $2 AND s.active
ORDER BY s.next_due_on, s.created_at, s.id
LIMIT $3::int
