-- Whether request id $1 has been used, for any owner.
SELECT 1 AS used FROM image_upload_requests WHERE request_id = $1
