-- An ingested image of a room type ($1) or of a room ($2 property, $3 number; $1 ''), placed at
-- sort order $7, or after the owner's last image when $7 is ''. $4 content SHA-256, $5 alt text,
-- $6 width, $8 height. ON CONFLICT covers a concurrent ingestion of the same original: the
-- first one wins and this inserts nothing.
INSERT INTO images (room_type_id, property_id, room_number, content_sha256, alt_text, sort_order, width, height)
SELECT NULLIF($1, ''), NULLIF($2, ''), NULLIF($3, ''), $4, $5,
       coalesce(NULLIF($7, '')::int,
                (SELECT coalesce(max(i.sort_order) + 1, 0) FROM images i
                 WHERE CASE WHEN $1 <> '' THEN i.room_type_id = $1
                            ELSE i.room_type_id IS NULL AND i.property_id = $2 AND i.room_number = $3 END)),
       $6::int, $8::int
ON CONFLICT DO NOTHING
RETURNING id
