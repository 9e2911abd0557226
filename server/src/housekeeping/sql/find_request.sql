-- $1 request id: the request that claimed it (api::FindRequest), its id being the request id.
SELECT request_id AS id, request_hash FROM housekeeping_requests WHERE request_id = $1
