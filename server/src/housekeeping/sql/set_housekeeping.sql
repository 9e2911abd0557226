-- Sets the housekeeping of rooms locked by lock_rooms.sql: one row each, each a ROOM change on the
-- feed and a history entry (migration 0020's trigger); returns their new state. $1 property id,
-- $2 room numbers (text[]), $3 condition or '' (unchanged), $4 occupancy or '' (unchanged),
-- $5 occupancy source, $6 observation time in epoch microseconds or '' (now), $7 reason, $8 actor.
-- clock_timestamp(): each write's time differs from the one before it, even within a transaction
-- that waited for the lock.
UPDATE rooms r
SET housekeeping_condition = coalesce(nullif($3, ''), housekeeping_condition),
    housekeeping_occupancy = coalesce(nullif($4, ''), housekeeping_occupancy),
    housekeeping_occupancy_source = CASE WHEN $4 = '' THEN housekeeping_occupancy_source ELSE $5 END,
    housekeeping_occupancy_observed_at = CASE WHEN $4 = '' THEN housekeeping_occupancy_observed_at
                                              ELSE coalesce(to_timestamp(nullif($6, '')::int8 / 1000000.0), now()) END,
    housekeeping_reason = $7,
    housekeeping_updated_by = $8,
    housekeeping_updated_at = clock_timestamp()
WHERE r.property_id = $1 AND r.number = ANY ($2::text[])
RETURNING r.property_id, r.number, {{room_housekeeping_columns}}
