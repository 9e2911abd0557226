-- Moves committed staged changes into the log (migration 0011); how many, -1 when another server
-- holds the sequencer's lock. Only when something is staged: sequence_changes() locks the head row
-- (FOR UPDATE), which takes a transaction id and writes WAL, so calling it on every tick made an idle
-- service write WAL for ever (and ship a segment every archive_timeout).
SELECT CASE WHEN EXISTS (SELECT FROM change_staging) THEN sequence_changes() ELSE 0 END AS result
