-- Moves up to $1 committed staged changes into the log, oldest first (migration 0019): moved is how
-- many, -1 when another server holds the sequencer's lock. A statement on its own, no transaction
-- around it. Only when something is staged: sequence_changes() locks the head row (FOR UPDATE),
-- which takes a transaction id and writes WAL, so calling it on every tick made an idle service
-- write WAL for ever (and ship a segment every archive_timeout).
-- With the log's head as it was before (the statement's snapshot) and the primary's WAL flush
-- position read after it: when nothing moved and the head is where the hub had read up to, the hub
-- has nothing to read, and this one round trip is its whole poll (and a read replicas' sample).
SELECT CASE WHEN EXISTS (SELECT FROM change_staging) THEN sequence_changes($1::integer) ELSE 0 END AS moved,
       (SELECT value FROM change_log_state WHERE name = 'head') AS head,
       {{wal_flush_position}} AS wal_position
