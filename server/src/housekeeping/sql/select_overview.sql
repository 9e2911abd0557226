-- A property's active rooms counted by floor, room type, condition, occupancy, readiness and
-- discrepancy (1.5.0): the overview sums these groups per floor, per room type and in total.
-- $1 property id.
SELECT r.floor, r.room_type_id, r.housekeeping_condition AS condition, r.housekeeping_occupancy AS occupancy,
       {{room_ready}} AS ready, {{room_discrepancy}} AS discrepancy, count(*)::int AS rooms
FROM rooms r
WHERE r.property_id = $1 AND r.retired_at IS NULL
GROUP BY r.floor, r.room_type_id, r.housekeeping_condition, r.housekeeping_occupancy, 5, 6
ORDER BY r.floor, r.room_type_id
