-- One row for the open issues of all time: those past resolve_by now, the age in seconds of the
-- oldest (0 if none), now (microseconds). $1 property ('' for all).
SELECT {{overdue_open_issues}}::int,
       coalesce(date_part('epoch', now() - (SELECT min(i.created_at) FROM issues i
                                            WHERE i.status IN {{open_issue_statuses}}
                                              AND ($1 = '' OR i.property_id = $1))), 0)::float8,
       {{now_micros}}
