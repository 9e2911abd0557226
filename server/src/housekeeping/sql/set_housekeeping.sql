-- Sets the housekeeping of rooms locked by lock_rooms.sql, each as its plan says: one row each,
-- each a ROOM change on the feed and a history entry (migration 0020's trigger); returns their new
-- state. $1 property id, $2 room numbers (text[]), $3 their conditions (text[], '' unchanged),
-- $4 whether each takes the occupancy (bool[]), $5 their reasons (text[]), $6 occupancy,
-- $7 occupancy source, $8 observation time in epoch microseconds, $9 actor; 1.5.0: $10 their
-- service requests (text[], '' unchanged), $11 observed occupancy ('' unchanged; its observer is
-- the actor), $12 cleaning priority ('' unchanged).
-- clock_timestamp(): each write's time differs from the one before it, even within a transaction
-- that waited for the lock. The observation time is added as an interval: exact to the
-- microsecond, so an observation repeated as it was stored is equal, not older.
UPDATE rooms r
SET housekeeping_condition = coalesce(nullif(w.condition, ''), r.housekeeping_condition),
    housekeeping_occupancy = CASE WHEN w.occupancy_applied THEN $6 ELSE r.housekeeping_occupancy END,
    housekeeping_occupancy_source = CASE WHEN w.occupancy_applied THEN $7 ELSE r.housekeeping_occupancy_source END,
    housekeeping_occupancy_observed_at = CASE WHEN w.occupancy_applied
                                              THEN timestamptz 'epoch' + $8::int8 * interval '1 microsecond'
                                              ELSE r.housekeeping_occupancy_observed_at END,
    housekeeping_reason = left(w.reason, 500),
    housekeeping_updated_by = $9,
    housekeeping_updated_at = clock_timestamp(),
    housekeeping_service_request = coalesce(nullif(w.service_request, ''), r.housekeeping_service_request),
    housekeeping_observed_occupancy = coalesce(nullif($11::text, ''), r.housekeeping_observed_occupancy),
    housekeeping_observed_by = CASE WHEN $11::text = '' THEN r.housekeeping_observed_by ELSE $9 END,
    housekeeping_observed_at = CASE WHEN $11::text = '' THEN r.housekeeping_observed_at ELSE clock_timestamp() END,
    housekeeping_cleaning_priority = coalesce(nullif($12::text, '')::int, r.housekeeping_cleaning_priority)
FROM unnest($2::text[], $3::text[], $4::bool[], $5::text[], $10::text[])
       AS w (number, condition, occupancy_applied, reason, service_request)
WHERE r.property_id = $1 AND r.number = w.number
RETURNING r.property_id, r.number, {{room_housekeeping_columns}}
