-- The housekeeping day turn at instant $1 (epoch microseconds): the rooms of the properties whose
-- local date turned since it was last applied, as their policy says (migration 0026,
-- apply_housekeeping_day_turn).
SELECT apply_housekeeping_day_turn(to_timestamp($1::int8 / 1000000.0)) AS changed
