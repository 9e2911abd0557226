-- The primary's WAL flush position (_wal_flush_position.sql says why the flush position).
SELECT {{wal_flush_position}}
