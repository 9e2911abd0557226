-- $1 property id, $2 number, $3 floor, $4 room type id, $5 extra amenities (text[] literal),
-- $6 retired, $7 actor. No row: the number is taken in the property.
INSERT INTO rooms (property_id, number, floor, room_type_id, extra_amenities, retired_at, updated_by)
VALUES ($1, $2, $3::int, $4, $5::text[], CASE WHEN $6::bool THEN now() END, $7)
ON CONFLICT (property_id, number) DO NOTHING RETURNING number
