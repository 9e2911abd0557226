-- $1 image id. Its image_files rows go with it (ON DELETE CASCADE) and their keys are recorded
-- in image_files_released for the store's garbage collection (migration 0015).
DELETE FROM images WHERE id = $1::uuid
