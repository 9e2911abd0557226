-- $1 request_id, $2 request hash, $3 id of the record the create makes. No row: the request_id
-- was claimed already (a retry waits here for the first request's transaction to end).
INSERT INTO room_data_requests (request_id, request_hash, id) VALUES ($1, $2, $3)
ON CONFLICT (request_id) DO NOTHING RETURNING id
