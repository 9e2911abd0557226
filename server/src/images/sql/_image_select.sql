-- An image row per file, in the order of image_columns in images/image_sql.h (ReadImageRows
-- reads them by those names and groups the files of one image), and their tables.
SELECT i.id, i.alt_text, i.sort_order, i.width, i.height, f.variant, f.format, f.storage_key,
       f.width AS file_width, f.height AS file_height, f.bytes AS file_bytes, i.version,
       coalesce(i.room_type_id, '') AS room_type_id, coalesce(i.property_id, '') AS property_id,
       coalesce(i.room_number, '') AS room_number
FROM images i JOIN image_files f ON f.image_id = i.id
