-- The columns of issue_day_counters and of its deltas.
property_id, created_day, status, priority, category, issues, resolved, resolve_seconds, responded, response_seconds,
created_epoch_sum
