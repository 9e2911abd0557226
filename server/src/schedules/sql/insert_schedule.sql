-- $1 property id, $2 room number, $3 equipment id ('' for none), $4 task, $5 interval unit,
-- $6 interval count, $7 starts on, $8 ends on ('' for none), $9 basis, $10 next due on,
-- $11 request id ('' for none), $12 request fingerprint. No row when the request id was used, the
-- room does not exist or the equipment is not in it (api::InsertOnce tells which).
INSERT INTO maintenance_schedules (property_id, room_number, equipment_id, task, interval_unit, interval_count,
                                   starts_on, ends_on, basis, next_due_on, request_id, request_hash)
SELECT $1, $2, NULLIF($3, '')::uuid, $4, $5, $6::int, $7::date, NULLIF($8, '')::date, $9, $10::date,
       NULLIF($11, ''), NULLIF($12, '')
WHERE EXISTS (SELECT 1 FROM rooms r WHERE r.property_id = $1 AND r.number = $2)
  AND ($3 = '' OR EXISTS (SELECT 1 FROM equipment e WHERE e.id = NULLIF($3, '')::uuid
                                                      AND e.property_id = $1 AND e.room_number = $2))
ON CONFLICT (request_id) DO NOTHING
RETURNING id::text
