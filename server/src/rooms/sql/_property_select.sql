-- The columns every property statement returns, in the order of property_columns in
-- rooms/room_sql.h (ReadProperty reads them by those names), and their table.
SELECT p.id, p.name, p.enabled, p.time_zone, p.city, p.country_code,
       (SELECT count(*) FROM rooms r WHERE r.property_id = p.id AND r.retired_at IS NULL)::int AS room_count,
       (SELECT count(*) FROM room_types t WHERE t.property_id = p.id AND t.retired_at IS NULL)::int AS room_type_count,
       p.version, p.updated_by, (extract(epoch FROM p.updated_at) * 1000000)::int8 AS updated_at_micros
FROM properties p
