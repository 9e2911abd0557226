-- The columns every room type statement returns, in the order of room_type_columns in
-- rooms/room_sql.h (ReadRoomType reads them by those names), and their table.
SELECT t.id, t.property_id, t.code, t.name, t.description, t.category, t.amenities,
       t.size_sqm::float8 AS size_sqm, t.max_guests, t.bed_type, t.version,
       (extract(epoch FROM t.retired_at) * 1000000)::int8 AS retired_at_micros, t.updated_by,
       (extract(epoch FROM t.updated_at) * 1000000)::int8 AS updated_at_micros,
       (SELECT count(*) FROM images i WHERE i.room_type_id = t.id)::int AS image_count
FROM room_types t
