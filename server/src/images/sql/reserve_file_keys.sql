-- Before an upload writes its files ($1: their storage keys, sorted, as a text[] literal), each
-- key is recorded as released now, under the key's lock: the store's garbage collection leaves a
-- key alone for the grace period after its latest release, so it cannot delete a file an upload
-- is about to register; a failed upload's files are collected once that period has passed.
INSERT INTO image_files_released (storage_key)
SELECT k FROM unnest($1::text[]) WITH ORDINALITY AS u (k, n),
     LATERAL (SELECT pg_advisory_xact_lock(hashtextextended(k, 47))) AS locked
ORDER BY n
