-- How far this replica has replayed the WAL, as a number (NULL on a primary, which is current by
-- definition), and the replica's name as it sees itself, for the lag metric.
SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::bigint,
       coalesce(host(inet_server_addr()), 'local') || ':' || coalesce(inet_server_port()::text, '')
