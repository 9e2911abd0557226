-- The columns every schedule statement returns, in the order of schedule_columns in
-- schedules/schedule_sql.h (ReadSchedule reads them by those names), and their tables.
SELECT s.id::text AS id, s.property_id, s.room_number, coalesce(s.equipment_id::text, '') AS equipment_id, s.task,
       s.interval_unit, s.interval_count, to_char(s.starts_on, 'YYYY-MM-DD') AS starts_on,
       coalesce(to_char(s.ends_on, 'YYYY-MM-DD'), '') AS ends_on, s.basis,
       to_char(s.next_due_on, 'YYYY-MM-DD') AS next_due_on,
       (extract(epoch FROM s.last_completed_at) * 1000000)::int8 AS last_completed_at_micros, s.active,
       (s.active AND s.next_due_on < (now() AT TIME ZONE p.time_zone)::date) AS overdue,
       (extract(epoch FROM s.created_at) * 1000000)::int8 AS created_at_micros, p.time_zone
FROM maintenance_schedules s JOIN properties p ON p.id = s.property_id
