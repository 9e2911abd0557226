-- $1 property id, $2 number, then the new values as in insert_room.sql. A retired room keeps its
-- first retirement time.
UPDATE rooms SET floor = $3::int, room_type_id = $4, extra_amenities = $5::text[],
  retired_at = CASE WHEN $6::bool THEN coalesce(retired_at, now()) END,
  updated_by = $7, updated_at = now()
WHERE property_id = $1 AND number = $2
