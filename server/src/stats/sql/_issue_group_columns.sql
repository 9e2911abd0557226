-- The columns of IssueGroup (stats/stats_sql.h) from rows of sums: past_resolve_by and the max
-- age 0 (the open issue clock has them); the ages summed as issues * now - their created epochs.
status, priority, category, property_id, issues::int, 0, resolved::int, resolve_seconds, responded::int,
response_seconds, issues * date_part('epoch', now()) - created_epoch_sum, 0::float8
