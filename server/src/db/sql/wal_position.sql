-- The primary's WAL write position as a number: once a commit has returned, at or past its commit
-- record (a write's consistency token; the samples of db/read_replicas.h).
SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint
