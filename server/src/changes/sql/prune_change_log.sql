-- Deletes up to $2 of the oldest changes older than the retention $1 (an interval); how many.
SELECT prune_change_log($1::interval, $2::integer) AS result
