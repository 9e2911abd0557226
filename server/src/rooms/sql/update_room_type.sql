-- $1 id, then the new values as in insert_room_type.sql ($2, $3 unused: property and code never
-- change). A retired type keeps its first retirement time.
UPDATE room_types SET name = $4, description = $5, category = $6, amenities = $7::text[],
  size_sqm = $8::numeric, max_guests = $9::int, bed_type = $10,
  retired_at = CASE WHEN $11::bool THEN coalesce(retired_at, now()) END,
  updated_by = $12, updated_at = now()
WHERE id = $1 AND property_id = $2 AND code = $3
