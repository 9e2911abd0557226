-- Releases older than $1 seconds of keys an image uses again (a finished upload's reservation,
-- or a file shared with a surviving image): nothing to collect. Removing that image records a
-- new release.
DELETE FROM image_files_released r
WHERE r.released_at < now() - make_interval(secs => $1::float8)
  AND EXISTS (SELECT 1 FROM image_files f WHERE f.storage_key = r.storage_key)
