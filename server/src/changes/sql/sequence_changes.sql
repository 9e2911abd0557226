-- Moves up to $1 committed staged changes into the log, oldest first (migration 0019); how many,
-- -1 when another server holds the sequencer's lock. A statement on its own, no transaction around
-- it. Only when something is staged: sequence_changes() locks the head row (FOR UPDATE), which takes
-- a transaction id and writes WAL, so calling it on every tick made an idle service write WAL for
-- ever (and ship a segment every archive_timeout).
SELECT CASE WHEN EXISTS (SELECT FROM change_staging) THEN sequence_changes($1::integer) ELSE 0 END AS result
