-- $1 property id, $2 room number, $3 name, $4 type, $5 manufacturer, $6 model, $7 serial number,
-- $8 installed on ('' for none), $9 warranty expires on ('' for none), $10 status, $11 notes,
-- $12 request id ('' for none), $13 request fingerprint. No row when the request id was used or the
-- room does not exist (api::InsertOnce tells which).
INSERT INTO equipment (property_id, room_number, name, type, manufacturer, model, serial_number, installed_on,
                       warranty_expires_on, status, notes, request_id, request_hash)
SELECT $1, $2, $3, $4, $5, $6, $7, NULLIF($8, '')::date, NULLIF($9, '')::date, $10, $11, NULLIF($12, ''),
       NULLIF($13, '')
WHERE EXISTS (SELECT 1 FROM rooms r WHERE r.property_id = $1 AND r.number = $2)
ON CONFLICT (request_id) DO NOTHING
RETURNING id::text
