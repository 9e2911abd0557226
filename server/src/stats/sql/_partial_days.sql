-- The issues (alias i) of a window's partial days, read one by one: created in [$4, $5) or in
-- [$6, $7) ('-infinity' / 'infinity' for an open end; an empty range is 'infinity', 'infinity').
(i.created_at >= $4::timestamptz AND i.created_at < $5::timestamptz
 OR i.created_at >= $6::timestamptz AND i.created_at < $7::timestamptz)
