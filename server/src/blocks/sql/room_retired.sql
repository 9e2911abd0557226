-- $1 property, $2 room number: whether the (existing) room is retired; no row when it does not exist.
SELECT retired_at IS NOT NULL AS retired FROM rooms WHERE property_id = $1 AND number = $2
