-- Whether a room (locked by the caller) is OCCUPIED while a hold from $3 to $4 covers its
-- property's today: no row when it is not. $1 property id, $2 room number, $3 first date held
-- ('' for today), $4 first date no longer held ('' for no end).
SELECT r.number
FROM rooms r JOIN properties p ON p.id = r.property_id
WHERE r.property_id = $1 AND r.number = $2 AND r.housekeeping_occupancy = 'OCCUPIED'
  AND coalesce(nullif($3, '')::date, (now() AT TIME ZONE p.time_zone)::date) <= (now() AT TIME ZONE p.time_zone)::date
  AND (nullif($4, '') IS NULL OR nullif($4, '')::date > (now() AT TIME ZONE p.time_zone)::date)
