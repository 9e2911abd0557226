-- BatchGetRooms: $1 property id, $2 room numbers (text[]). The rooms of them that exist, in the
-- order of $2, in one statement whatever their number.
{{room_select}}
JOIN unnest($2::text[]) WITH ORDINALITY AS asked(room_number, ord) ON asked.room_number = r.number
WHERE r.property_id = $1
ORDER BY asked.ord
