-- $1 room type id
SELECT 1 FROM room_types WHERE id = $1
