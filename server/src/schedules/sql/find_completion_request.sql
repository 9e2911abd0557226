-- $1 request id: the schedule_completions row a create with that request_id made, and the fingerprint of that
-- request (api::FindRequest).
SELECT id::text AS id, request_hash FROM schedule_completions WHERE request_id = $1
