-- $1 request id: the issues row a create with that request_id made, and the fingerprint of that
-- request (api::FindRequest).
SELECT id::text AS id, request_hash FROM issues WHERE request_id = $1
