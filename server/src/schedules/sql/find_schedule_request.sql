-- $1 request id: the maintenance_schedules row a create with that request_id made, and the fingerprint of that
-- request (api::FindRequest).
SELECT id::text AS id, request_hash FROM maintenance_schedules WHERE request_id = $1
