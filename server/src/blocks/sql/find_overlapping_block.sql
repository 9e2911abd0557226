-- The active OUT_OF_ORDER block (other than $5) of a room that [$3, $4) overlaps: the one an
-- exclusion violation (23P01) ran into. $1 property, $2 room, $3 start date, $4 end date or '',
-- $5 the block's own id or ''.
SELECT b.id::text AS id, to_char(b.start_date, 'YYYY-MM-DD') AS start_date,
       coalesce(to_char(b.end_date, 'YYYY-MM-DD'), '') AS end_date
FROM room_blocks b
WHERE b.property_id = $1 AND b.room_number = $2 AND b.type = 'OUT_OF_ORDER' AND b.status = 'ACTIVE'
  AND b.origin = 'API' AND ($5 = '' OR b.id <> NULLIF($5, '')::uuid)
  AND daterange(b.start_date, b.end_date) && daterange($3::date, NULLIF($4, '')::date)
ORDER BY b.start_date LIMIT 1
