-- Per date of [$2, $3) and room type of property $1: the active rooms, and how many of them are
-- out of order (an active OUT_OF_ORDER block covers the date, or an open issue holds the room:
-- from the date it went out of order, with no end), or only out of service (an active
-- OUT_OF_SERVICE block). A room counts once per date whatever number of blocks cover it. A
-- property without rooms has one row per date, room type NULL.
WITH days AS (
  SELECT d::date AS day FROM generate_series($2::date, $3::date - 1, interval '1 day') AS d),
inventory AS (
  SELECT r.room_type_id, count(*)::int AS rooms FROM rooms r
  WHERE r.property_id = $1 AND r.retired_at IS NULL GROUP BY r.room_type_id),
spans AS (
  SELECT b.room_number, b.start_date, b.end_date, b.type = 'OUT_OF_ORDER' AS out_of_order
  FROM room_blocks b
  WHERE b.property_id = $1 AND b.status = 'ACTIVE' AND daterange(b.start_date, b.end_date) && daterange($2::date, $3::date)
  UNION ALL
  SELECT r.number, least((r.out_of_order_since AT TIME ZONE p.time_zone)::date, (now() AT TIME ZONE p.time_zone)::date),
         NULL, true
  FROM rooms r JOIN properties p ON p.id = r.property_id
  WHERE r.property_id = $1 AND r.out_of_order
    AND EXISTS (SELECT 1 FROM issues i WHERE i.property_id = r.property_id AND i.room_number = r.number
                                         AND i.take_room_out_of_order)),
-- Each span expanded into its dates within the range (a join of every span with every date of a
-- year would compare millions of pairs).
covered AS (
  SELECT g.day::date AS day, r.room_type_id, r.number, bool_or(s.out_of_order) AS out_of_order
  FROM spans s
  JOIN rooms r ON r.property_id = $1 AND r.number = s.room_number AND r.retired_at IS NULL
  CROSS JOIN LATERAL generate_series(greatest(s.start_date, $2::date), least(coalesce(s.end_date, $3::date), $3::date) - 1,
                                     interval '1 day') AS g (day)
  GROUP BY 1, r.room_type_id, r.number),
counts AS (
  SELECT day, room_type_id, count(*) FILTER (WHERE out_of_order)::int AS out_of_order,
         count(*) FILTER (WHERE NOT out_of_order)::int AS out_of_service
  FROM covered GROUP BY day, room_type_id)
SELECT to_char(d.day, 'YYYY-MM-DD') AS day, i.room_type_id, coalesce(i.rooms, 0) AS rooms,
       coalesce(c.out_of_order, 0) AS out_of_order, coalesce(c.out_of_service, 0) AS out_of_service
FROM days d LEFT JOIN inventory i ON true
LEFT JOIN counts c ON c.day = d.day AND c.room_type_id = i.room_type_id
ORDER BY d.day, i.room_type_id
