-- Locks key $1 (as uploads reserving it do) and answers a row only while it may still be
-- collected: released longer than $2 seconds ago and used by no image.
SELECT pg_advisory_xact_lock(hashtextextended($1, 47)) IS NOT NULL AS locked
WHERE NOT EXISTS (SELECT 1 FROM image_files f WHERE f.storage_key = $1)
  AND (SELECT max(released_at) FROM image_files_released WHERE storage_key = $1)
      < now() - make_interval(secs => $2::float8)
