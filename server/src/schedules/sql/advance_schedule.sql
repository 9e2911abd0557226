-- $1 schedule id, $2 next due on, $3 completed at (microseconds since the epoch), $4 still active.
UPDATE maintenance_schedules
SET next_due_on = $2::date,
    last_completed_at = greatest(last_completed_at, 'epoch'::timestamptz + $3::int8 * interval '1 microsecond'),
    active = $4::bool,
    updated_at = now()
WHERE id = $1::uuid
