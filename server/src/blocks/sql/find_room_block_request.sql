-- $1 request id: the block a create with that request_id made, and the fingerprint of that
-- request (api::FindRequest).
SELECT id::text AS id, request_hash FROM room_blocks WHERE request_id = $1
