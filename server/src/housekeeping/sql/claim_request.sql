-- $1 request_id, $2 request hash. No row: the request_id was claimed already (a retry waits here
-- for the first request's transaction to end); find_request.sql tells by which request.
INSERT INTO housekeeping_requests (request_id, request_hash) VALUES ($1, $2)
ON CONFLICT (request_id) DO NOTHING RETURNING request_id AS id
