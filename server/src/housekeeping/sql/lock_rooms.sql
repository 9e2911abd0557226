-- The rooms a housekeeping write sets, locked in number order, so racing writes of overlapping
-- rooms queue one after the other and never deadlock; with what the write's rules read (1.5.0:
-- the occupancy and its observation time for check-out and observation order, and now, the
-- observation time of a write that gives none). $1 property id, $2 room numbers (text[]).
SELECT r.number, r.housekeeping_condition AS condition, r.retired_at IS NOT NULL AS retired,
       r.housekeeping_occupancy AS occupancy,
       (extract(epoch FROM r.housekeeping_occupancy_observed_at) * 1000000)::int8 AS observed_micros,
       (extract(epoch FROM now()) * 1000000)::int8 AS now_micros
FROM rooms r
WHERE r.property_id = $1 AND r.number = ANY ($2::text[])
ORDER BY r.number
FOR UPDATE
