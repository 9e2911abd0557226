-- The primary's WAL write position, as a number: after a commit returned, at or past its commit
-- record (the consistency token of a write; the samples of db/read_replicas.h).
SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint
