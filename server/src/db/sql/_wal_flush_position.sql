-- The primary's WAL flush position as a number: once a commit has returned, at or past its commit
-- record (a write's consistency token; the samples of db/read_replicas.h, which the change hub's
-- statements carry). The flush position, not the insert or write one: WAL not yet flushed (hint
-- bits, others' open work) cannot have reached a replica, and a token naming it would wait for
-- nothing of the caller's. Used as {{wal_flush_position}}.
pg_wal_lsn_diff(pg_current_wal_flush_lsn(), '0/0')::bigint
