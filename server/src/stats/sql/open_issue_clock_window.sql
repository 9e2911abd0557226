-- One row for the open issues created in a window: those NOT yet due (index issues_open_due from
-- now on: the issues within their resolution target, few; overdue = open - not yet due), the age
-- in seconds of the oldest (the first entry of index issues_open_window in the window; 0 if none),
-- now (microseconds). $1 property ('' for all), created in [$2, $3) ('-infinity' / 'infinity' for
-- an open end).
SELECT (SELECT count(*) FROM issues i
        WHERE i.status IN {{open_issue_statuses}} AND i.resolve_by >= now()
          AND i.created_at >= $2::timestamptz AND i.created_at < $3::timestamptz
          AND ($1 = '' OR i.property_id = $1))::int,
       coalesce(date_part('epoch', now() - (SELECT min(i.created_at) FROM issues i
                                            WHERE i.status IN {{open_issue_statuses}}
                                              AND i.created_at >= $2::timestamptz AND i.created_at < $3::timestamptz
                                              AND ($1 = '' OR i.property_id = $1))), 0)::float8,
       {{now_micros}}
