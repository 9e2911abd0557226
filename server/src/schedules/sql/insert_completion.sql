-- $1 schedule id, $2 due on, $3 completed at (microseconds since the epoch), $4 completed on,
-- $5 completed by, $6 notes, $7 late, $8 days late, $9 next due on, $10 request id ('' for none),
-- $11 request fingerprint. No row when the occurrence or the request id already has a completion.
INSERT INTO schedule_completions (schedule_id, due_on, completed_at, completed_on, completed_by, notes, late,
                                  days_late, next_due_on, request_id, request_hash)
VALUES ($1::uuid, $2::date, 'epoch'::timestamptz + $3::int8 * interval '1 microsecond', $4::date, $5, $6,
        $7::bool, $8::int, $9::date, NULLIF($10, ''), NULLIF($11, ''))
ON CONFLICT DO NOTHING
RETURNING id::text
