-- The image an earlier upload with request id $1 created for this owner: a room type ($2) or a
-- room ($3 property, $4 number; $2 '').
{{image_select}}
JOIN image_upload_requests r ON r.image_id = i.id
WHERE r.request_id = $1 AND coalesce(i.room_type_id, '') = $2 AND coalesce(i.property_id, '') = $3
  AND coalesce(i.room_number, '') = $4
ORDER BY i.sort_order, i.id, f.variant, f.format
