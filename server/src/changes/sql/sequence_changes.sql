-- Moves committed staged changes into the log (migration 0011); how many, -1 when another server
-- holds the sequencer's lock.
SELECT sequence_changes() AS result
