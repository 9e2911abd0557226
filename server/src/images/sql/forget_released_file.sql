-- The collected key $1 is forgotten.
DELETE FROM image_files_released WHERE storage_key = $1
