-- $1 request id, $2 the image it created (or found: the same original for the same owner).
INSERT INTO image_upload_requests (request_id, image_id) VALUES ($1, $2::uuid) ON CONFLICT DO NOTHING
