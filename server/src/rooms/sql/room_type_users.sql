-- $1 room type id. Active rooms of the room type (at most 21: an error names 20).
SELECT number AS name FROM rooms WHERE room_type_id = $1 AND retired_at IS NULL ORDER BY number LIMIT 21
