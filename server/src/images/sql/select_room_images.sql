-- A room's own gallery in order (not its room type's), or ($3 not '') its image with that
-- original's SHA-256. $1 property id, $2 room number, $3 content SHA-256 or ''.
{{image_select}}
WHERE i.room_type_id IS NULL AND i.property_id = $1 AND i.room_number = $2 AND ($3 = '' OR i.content_sha256 = $3)
ORDER BY i.sort_order, i.id, f.variant, f.format
