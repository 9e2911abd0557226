-- The owner of image $1: room_type_id, or property_id and room_number ('' for the unset ones).
SELECT coalesce(room_type_id, '') AS room_type_id, coalesce(property_id, '') AS property_id,
       coalesce(room_number, '') AS room_number
FROM images WHERE id = $1::uuid
