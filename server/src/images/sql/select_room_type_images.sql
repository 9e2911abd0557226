-- A room type's gallery in order, or ($2 not '') its image with that original's SHA-256.
-- $1 room type id, $2 content SHA-256 or ''.
{{image_select}}
WHERE i.room_type_id = $1 AND ($2 = '' OR i.content_sha256 = $2)
ORDER BY i.sort_order, i.id, f.variant, f.format
