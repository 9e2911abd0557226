-- Open issues past resolve_by now, of property $1 ('' for all): whole UTC days before today from
-- the due-day rollup, today's part counted exactly through the issues_open_due index (a day of
-- issues at most).
((SELECT coalesce(sum(d.issues), 0) FROM open_issue_due_days_current d
  WHERE d.due_day < (now() AT TIME ZONE 'UTC')::date AND ($1 = '' OR d.property_id = $1))
 + (SELECT count(*) FROM issues i
    WHERE i.status IN {{open_issue_statuses}}
      AND i.resolve_by >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AND i.resolve_by < now()
      AND ($1 = '' OR i.property_id = $1)))
