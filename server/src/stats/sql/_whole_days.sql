-- The whole UTC days of a window, read from a per-day rollup (column created_day): $2 first day,
-- $3 the day after the last ('-infinity' / 'infinity' when unbounded; equal when none).
created_day >= $2::date AND created_day < $3::date
