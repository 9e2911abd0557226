-- $1 request id: the equipment row a create with that request_id made, and the fingerprint of that
-- request (api::FindRequest).
SELECT id::text AS id, request_hash FROM equipment WHERE request_id = $1
