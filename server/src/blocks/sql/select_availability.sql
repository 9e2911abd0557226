-- Per date of [$2, $3) and room type of property $1: the active rooms, and how many of them are
-- out of order (an active OUT_OF_ORDER block covers the date, or an open issue holds the room:
-- from the date it went out of order, with no end), or only out of service (an active
-- OUT_OF_SERVICE block). A room counts once per date whatever number of blocks cover it. A
-- property without rooms has one row per date, room type NULL.
--
-- A sweep, not a count per date and room (docs/performance.md, "Room blocks"): each span,
-- clipped to the range, adds only the dates no earlier span of its room (by start date) covered
-- — [greatest(its start, the latest end before it), its end) — so the added pieces of a room are
-- disjoint; +1 where a piece starts and -1 where it ends, summed per room type and date, then
-- added up along the dates, give the rooms covered. Once over every span (blocked), once over the
-- OUT_OF_ORDER ones (a room that is both counts as out of order); out of service is the
-- difference. One sort of the spans, one pass of grouping sets, and the rows per date are the
-- room types, whatever the number of blocks.
WITH days AS (
  SELECT d::date AS day FROM generate_series($2::date, $3::date - 1, interval '1 day') AS d),
inventory AS (
  SELECT r.room_type_id, count(*)::int AS rooms FROM rooms r
  WHERE r.property_id = $1 AND r.retired_at IS NULL GROUP BY r.room_type_id),
spans AS (
  SELECT b.room_number, greatest(b.start_date, $2::date) AS start_date,
         least(coalesce(b.end_date, $3::date), $3::date) AS end_date, b.type = 'OUT_OF_ORDER' AS out_of_order
  FROM room_blocks b
  WHERE b.property_id = $1 AND b.status = 'ACTIVE' AND daterange(b.start_date, b.end_date) && daterange($2::date, $3::date)
  UNION ALL
  SELECT r.number,
         greatest(least((r.out_of_order_since AT TIME ZONE p.time_zone)::date, (now() AT TIME ZONE p.time_zone)::date),
                  $2::date),
         $3::date, true
  FROM rooms r JOIN properties p ON p.id = r.property_id
  WHERE r.property_id = $1 AND r.out_of_order
    AND EXISTS (SELECT 1 FROM issues i WHERE i.property_id = r.property_id AND i.room_number = r.number
                                         AND i.take_room_out_of_order)),
-- Per span, where its added piece starts (it ends at the span's end; none when that start is not
-- before the end): of every span (blocked_from) and of the OUT_OF_ORDER ones (out_of_order_from).
swept AS (
  SELECT s.room_type_id, s.end_date, s.out_of_order,
         greatest(s.start_date, max(s.end_date) OVER earlier) AS blocked_from,
         greatest(s.start_date, max(s.end_date) FILTER (WHERE s.out_of_order) OVER earlier) AS out_of_order_from
  FROM (SELECT r.room_type_id, s.room_number, s.start_date, s.end_date, s.out_of_order
        FROM spans s JOIN rooms r ON r.property_id = $1 AND r.number = s.room_number AND r.retired_at IS NULL) AS s
  WINDOW earlier AS (PARTITION BY s.room_number ORDER BY s.start_date ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)),
-- The +1s and -1s per room type and date, in one pass: grouped by end (both -1s), by blocked_from
-- and by out_of_order_from.
changes AS (
  SELECT room_type_id,
         CASE WHEN GROUPING(end_date) = 0 THEN end_date WHEN GROUPING(blocked_from) = 0 THEN blocked_from
              ELSE out_of_order_from END AS day,
         CASE WHEN GROUPING(end_date) = 0 THEN -1 WHEN GROUPING(blocked_from) = 0 THEN 1 ELSE 0 END
           * count(*) FILTER (WHERE blocked_from < end_date) AS blocked,
         CASE WHEN GROUPING(end_date) = 0 THEN -1 WHEN GROUPING(out_of_order_from) = 0 THEN 1 ELSE 0 END
           * count(*) FILTER (WHERE out_of_order AND out_of_order_from < end_date) AS out_of_order
  FROM swept
  GROUP BY GROUPING SETS ((room_type_id, end_date), (room_type_id, blocked_from), (room_type_id, out_of_order_from))),
deltas AS (
  SELECT room_type_id, day, sum(blocked) AS blocked, sum(out_of_order) AS out_of_order
  FROM changes GROUP BY room_type_id, day),
counts AS (
  SELECT d.day, i.room_type_id, i.rooms,
         sum(coalesce(c.blocked, 0)) OVER along AS blocked, sum(coalesce(c.out_of_order, 0)) OVER along AS out_of_order
  FROM days d LEFT JOIN inventory i ON true
  LEFT JOIN deltas c ON c.day = d.day AND c.room_type_id = i.room_type_id
  WINDOW along AS (PARTITION BY i.room_type_id ORDER BY d.day))
SELECT to_char(day, 'YYYY-MM-DD') AS day, room_type_id, coalesce(rooms, 0) AS rooms,
       out_of_order::int AS out_of_order, (blocked - out_of_order)::int AS out_of_service
FROM counts
ORDER BY counts.day, room_type_id
