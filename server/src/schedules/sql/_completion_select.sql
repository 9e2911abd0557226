-- The columns every completion statement returns, in the order of completion_columns in
-- schedules/schedule_sql.h (ReadCompletion reads them by those names), and their tables.
SELECT c.id::text AS id, c.schedule_id::text AS schedule_id, to_char(c.due_on, 'YYYY-MM-DD') AS due_on,
       (extract(epoch FROM c.completed_at) * 1000000)::int8 AS completed_at_micros,
       to_char(c.completed_on, 'YYYY-MM-DD') AS completed_on, c.completed_by, c.notes, c.late, c.days_late,
       to_char(c.next_due_on, 'YYYY-MM-DD') AS next_due_on, s.task
FROM schedule_completions c JOIN maintenance_schedules s ON s.id = c.schedule_id
