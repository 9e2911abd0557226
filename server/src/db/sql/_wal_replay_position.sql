-- How far this replica has replayed the WAL, as a number; NULL on a primary (current by
-- definition). Used as {{wal_replay_position}}.
pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::bigint
