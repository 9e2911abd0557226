-- The image an earlier upload with request id $1 created for this owner, a room type ($2) or a
-- room ($3 property, $4 number; $2 ''), from the same original ($5, its SHA-256): another file
-- under the same request id is another request (REQUEST_ID_REUSED, select_request_used.sql).
{{image_select}}
JOIN image_upload_requests r ON r.image_id = i.id
WHERE r.request_id = $1 AND coalesce(i.room_type_id, '') = $2 AND coalesce(i.property_id, '') = $3
  AND coalesce(i.room_number, '') = $4
  AND i.content_sha256 = $5
ORDER BY i.sort_order, i.id, f.variant, f.format
