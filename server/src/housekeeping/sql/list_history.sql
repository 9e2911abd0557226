-- A room's housekeeping history, newest first, after the page key. $1 property id, $2 room number,
-- $3 the last sequence of the previous page ('' for the first page), $4 rows to fetch.
SELECT h.id AS sequence, h.condition, h.occupancy, h.previous_condition, h.previous_occupancy, h.occupancy_source,
       (extract(epoch FROM h.occupancy_observed_at) * 1000000)::int8 AS observed_micros, h.reason, h.updated_by,
       (extract(epoch FROM h.updated_at) * 1000000)::int8 AS updated_micros,
       coalesce(h.observed_occupancy, '') AS observed_occupancy, h.service_request, h.cleaning_priority
FROM room_housekeeping_history h
WHERE h.property_id = $1 AND h.room_number = $2 AND h.id < coalesce(nullif($3, '')::int8, 9223372036854775807)
ORDER BY h.id DESC
LIMIT $4::int
