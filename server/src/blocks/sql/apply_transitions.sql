-- The daily pass at instant $1 (epoch microseconds): the rooms whose blocks started or ended since
-- their property's date last turned (migration 0017, apply_room_block_transitions).
SELECT apply_room_block_transitions(to_timestamp($1::int8 / 1000000.0)) AS changed
