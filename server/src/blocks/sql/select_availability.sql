-- Per date of [$2, $3) and room type of property $1: the active rooms, and how many of them an
-- active OUT_OF_ORDER block covers, or only an OUT_OF_SERVICE one. A room counts once per date
-- whatever number of blocks cover it. A property without rooms has one row per date, room type NULL.
WITH days AS (
  SELECT d::date AS day FROM generate_series($2::date, $3::date - 1, interval '1 day') AS d),
inventory AS (
  SELECT r.room_type_id, count(*)::int AS rooms FROM rooms r
  WHERE r.property_id = $1 AND r.retired_at IS NULL GROUP BY r.room_type_id),
covered AS (
  SELECT d.day, r.room_type_id, r.number, bool_or(b.type = 'OUT_OF_ORDER') AS out_of_order
  FROM room_blocks b
  JOIN rooms r ON r.property_id = b.property_id AND r.number = b.room_number AND r.retired_at IS NULL
  JOIN days d ON d.day >= b.start_date AND (b.end_date IS NULL OR d.day < b.end_date)
  WHERE b.property_id = $1 AND b.status = 'ACTIVE'
    AND daterange(b.start_date, b.end_date) && daterange($2::date, $3::date)
  GROUP BY d.day, r.room_type_id, r.number),
counts AS (
  SELECT day, room_type_id, count(*) FILTER (WHERE out_of_order)::int AS out_of_order,
         count(*) FILTER (WHERE NOT out_of_order)::int AS out_of_service
  FROM covered GROUP BY day, room_type_id)
SELECT to_char(d.day, 'YYYY-MM-DD') AS day, i.room_type_id, coalesce(i.rooms, 0) AS rooms,
       coalesce(c.out_of_order, 0) AS out_of_order, coalesce(c.out_of_service, 0) AS out_of_service
FROM days d LEFT JOIN inventory i ON true
LEFT JOIN counts c ON c.day = d.day AND c.room_type_id = i.room_type_id
ORDER BY d.day, i.room_type_id
