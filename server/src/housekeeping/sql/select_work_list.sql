-- The rooms to clean: active, in order, vacant and neither clean nor inspected, by floor and
-- number. $1 property id.
SELECT r.number, r.floor, r.room_type_id, r.housekeeping_condition AS condition
FROM rooms r
WHERE r.property_id = $1 AND r.retired_at IS NULL AND NOT r.out_of_order AND r.housekeeping_occupancy = 'VACANT'
  AND r.housekeeping_condition = 'DIRTY'
ORDER BY r.floor, r.number
