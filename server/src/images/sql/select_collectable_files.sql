-- Up to $2 keys whose latest release is older than $1 seconds and that no image uses.
SELECT r.storage_key FROM image_files_released r
WHERE NOT EXISTS (SELECT 1 FROM image_files f WHERE f.storage_key = r.storage_key)
GROUP BY r.storage_key
HAVING max(r.released_at) < now() - make_interval(secs => $1::float8)
ORDER BY max(r.released_at)
LIMIT $2::int
