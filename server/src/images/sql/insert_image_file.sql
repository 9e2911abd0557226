-- $1 image id, $2 variant, $3 format, $4 storage key, $5 width, $6 height, $7 bytes.
INSERT INTO image_files (image_id, variant, format, storage_key, width, height, bytes)
VALUES ($1, $2, $3, $4, $5::int, $6::int, $7::int8)
