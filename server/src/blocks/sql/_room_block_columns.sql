-- The columns every room block statement returns (alias b), in the order of room_block_columns
-- in blocks/block_sql.h; ReadRoomBlock reads them by those names. Timestamps as epoch
-- microseconds; start_days is the page key's start date (days since 1970-01-01).
b.id::text AS id, b.property_id, b.room_number, b.type, to_char(b.start_date, 'YYYY-MM-DD') AS start_date,
coalesce(to_char(b.end_date, 'YYYY-MM-DD'), '') AS end_date, b.reason, coalesce(b.issue_id::text, '') AS issue_id,
b.origin, b.status,
(extract(epoch FROM b.created_at) * 1000000)::int8 AS created_at_micros,
(extract(epoch FROM b.updated_at) * 1000000)::int8 AS updated_at_micros,
(extract(epoch FROM b.cancelled_at) * 1000000)::int8 AS cancelled_at_micros,
b.updated_by, b.version, (b.start_date - date '1970-01-01')::int8 AS start_days, b.return_condition
