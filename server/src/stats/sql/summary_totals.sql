-- The dashboard's totals, one row: the columns of summary_columns (stats/stats_sql.h). $1 property
-- ('' for all). Retired room types and rooms are no longer part of the inventory.
SELECT (SELECT count(*) FROM properties p WHERE ($1 = '' OR p.id = $1))::int,
       (SELECT count(*) FROM properties p WHERE p.enabled AND ($1 = '' OR p.id = $1))::int,
       (SELECT count(*) FROM room_types t WHERE t.retired_at IS NULL AND ($1 = '' OR t.property_id = $1))::int,
       (SELECT count(*) FROM rooms r WHERE r.retired_at IS NULL AND ($1 = '' OR r.property_id = $1))::int,
       (SELECT count(*) FROM rooms r
        WHERE r.out_of_order AND r.retired_at IS NULL AND ($1 = '' OR r.property_id = $1))::int,
       (SELECT count(*) FROM equipment e WHERE ($1 = '' OR e.property_id = $1))::int,
       (SELECT coalesce(sum(d.schedules), 0) FROM schedule_due_days_current d
        WHERE ($1 = '' OR d.property_id = $1))::int,
       (SELECT coalesce(sum(d.schedules), 0) FROM schedule_due_days_current d JOIN properties p ON p.id = d.property_id
        WHERE d.due_day < (now() AT TIME ZONE p.time_zone)::date AND ($1 = '' OR d.property_id = $1))::int,
       (SELECT coalesce(sum(d.schedules), 0) FROM schedule_due_days_current d JOIN properties p ON p.id = d.property_id
        WHERE d.due_day BETWEEN (now() AT TIME ZONE p.time_zone)::date AND (now() AT TIME ZONE p.time_zone)::date + 6
          AND ($1 = '' OR d.property_id = $1))::int,
       (SELECT coalesce(sum(c.issues), 0) FROM issue_counters_current c
        WHERE c.status IN {{open_issue_statuses}} AND ($1 = '' OR c.property_id = $1))::int,
       {{overdue_open_issues}}::int,
       {{now_micros}}
