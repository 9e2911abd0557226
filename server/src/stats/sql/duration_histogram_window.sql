-- The duration histograms of a window: whole days from the per-day rollup and its deltas, partial
-- days from the issues. $1 property ('' for all), $2..$7 the window (_whole_days.sql,
-- _partial_days.sql).
SELECT kind, bucket, sum(issues)::int8
FROM (SELECT kind, bucket, issues
      FROM (SELECT property_id, created_day, kind, bucket, issues FROM issue_day_duration_buckets
            UNION ALL SELECT property_id, created_day, kind, bucket, issues FROM issue_day_duration_bucket_deltas) d
      WHERE {{whole_days}} AND ($1 = '' OR property_id = $1)
      UNION ALL
      SELECT 'resolve', issue_duration_bucket(date_part('epoch', i.resolved_at - i.created_at)), 1 FROM issues i
      WHERE i.resolved_at IS NOT NULL AND {{partial_days}} AND ($1 = '' OR i.property_id = $1)
      UNION ALL
      SELECT 'response', issue_duration_bucket(date_part('epoch', i.first_response_at - i.created_at)), 1
      FROM issues i
      WHERE i.first_response_at IS NOT NULL AND {{partial_days}} AND ($1 = '' OR i.property_id = $1)) h
GROUP BY kind, bucket ORDER BY kind, bucket
