-- $1 request id: the id of what a create with that request_id made (property, room type or
-- room), and the fingerprint of that request (api::FindRequest).
SELECT id, request_hash FROM room_data_requests WHERE request_id = $1
