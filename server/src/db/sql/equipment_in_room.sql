-- $1 equipment id, $2 property id, $3 room number
SELECT 1 FROM equipment WHERE id = $1::uuid AND property_id = $2 AND room_number = $3
