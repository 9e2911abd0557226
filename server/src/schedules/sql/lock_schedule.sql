-- $1 schedule id. Locks the schedule for a completion (schedule_lock_columns in schedule_sql.h).
SELECT s.active, s.interval_unit, s.interval_count, s.basis, to_char(s.starts_on, 'YYYY-MM-DD'),
       to_char(s.next_due_on, 'YYYY-MM-DD'), coalesce(to_char(s.ends_on, 'YYYY-MM-DD'), ''),
       (extract(epoch FROM s.last_completed_at) * 1000000)::int8, p.time_zone,
       (extract(epoch FROM now()) * 1000000)::int8
FROM maintenance_schedules s JOIN properties p ON p.id = s.property_id
WHERE s.id = $1::uuid
FOR UPDATE OF s
