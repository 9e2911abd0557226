-- Rows (kind 'resolve' or 'response', bucket, issues) of the duration histograms of all time, by
-- bucket. $1 property ('' for all).
SELECT kind, bucket, sum(issues)::int8 FROM issue_duration_buckets_current WHERE ($1 = '' OR property_id = $1)
GROUP BY kind, bucket ORDER BY kind, bucket
