-- $1 property id. Locks every room type of the property for an import, after its rooms.
SELECT id FROM room_types WHERE property_id = $1 ORDER BY id FOR NO KEY UPDATE
