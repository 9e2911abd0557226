-- The rooms a housekeeping write sets, locked in number order, so racing writes of overlapping
-- rooms queue one after the other and never deadlock. $1 property id, $2 room numbers (text[]).
SELECT r.number, r.housekeeping_condition AS condition, r.retired_at IS NOT NULL AS retired
FROM rooms r
WHERE r.property_id = $1 AND r.number = ANY ($2::text[])
ORDER BY r.number
FOR UPDATE
