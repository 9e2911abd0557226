-- $1 schedule id. Locks the schedule for a completion; the columns in the order of
-- schedule_lock_columns in schedules/schedule_sql.h.
SELECT s.active, s.interval_unit, s.interval_count, s.basis, to_char(s.starts_on, 'YYYY-MM-DD') AS starts_on,
       to_char(s.next_due_on, 'YYYY-MM-DD') AS next_due_on,
       coalesce(to_char(s.ends_on, 'YYYY-MM-DD'), '') AS ends_on,
       (extract(epoch FROM s.last_completed_at) * 1000000)::int8 AS last_completed_at_micros, p.time_zone,
       (extract(epoch FROM now()) * 1000000)::int8 AS now_micros
FROM maintenance_schedules s JOIN properties p ON p.id = s.property_id
WHERE s.id = $1::uuid
FOR UPDATE OF s
