-- $1 id, $2 property id, $3 code, $4 name, $5 description, $6 category, $7 amenities (text[]
-- literal), $8 size in m², $9 max guests, $10 bed type, $11 retired, $12 actor. No row: the id is
-- taken.
INSERT INTO room_types (id, property_id, code, name, description, category, amenities, size_sqm,
  max_guests, bed_type, retired_at, updated_by)
VALUES ($1, $2, $3, $4, $5, $6, $7::text[], $8::numeric, $9::int, $10,
  CASE WHEN $11::bool THEN now() END, $12)
ON CONFLICT (id) DO NOTHING RETURNING id
