-- The columns every room statement returns, in the order of room_columns in rooms/room_sql.h
-- (ReadRoom reads them by those names), and their tables. image_count: the pictures its
-- galleries show (its own and its type's), for its etag. version: the room data's (1.5.0, migration
-- 0027: the row's changes but its housekeeping's).
SELECT r.property_id, r.number, r.floor, r.room_type_id, t.category,
       t.amenities || r.extra_amenities AS amenities, r.out_of_order, r.out_of_order_reason,
       (extract(epoch FROM r.out_of_order_since) * 1000000)::int8 AS out_of_order_since_micros,
       room_equipment_count(r.property_id, r.number) AS equipment_count,
       r.version - r.housekeeping_version AS version,
       t.version AS room_type_version, (extract(epoch FROM r.retired_at) * 1000000)::int8 AS retired_at_micros,
       r.updated_by, (extract(epoch FROM r.updated_at) * 1000000)::int8 AS updated_at_micros, r.extra_amenities,
       ((SELECT count(*) FROM images i WHERE i.room_type_id = r.room_type_id)
        + (SELECT count(*) FROM images i
           WHERE i.room_type_id IS NULL AND i.property_id = r.property_id AND i.room_number = r.number))::int
         AS image_count,
       {{room_housekeeping_columns}}
FROM rooms r JOIN room_types t ON t.id = r.room_type_id
