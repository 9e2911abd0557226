-- The issue and its CREATED event in one statement, with the room (and equipment) checked in the
-- same statement: no row means the request_id was used already or a reference does not exist
-- (api::InsertOnce tells which).
-- $1 property, $2 room, $3 equipment id or '', $4 title, $5 description, $6 category, $7 priority,
-- $8 reported_by (also updated_by and the event's actor), $9 assignee, $10 resolution target
-- seconds, $11 request_id or '', $12 request hash or '', $13 take_room_out_of_order, $14 return condition.
WITH issue AS (
  INSERT INTO issues AS i (property_id, room_number, equipment_id, title, description, category, priority,
                           reported_by, assignee, updated_by, resolve_by, request_id, request_hash,
                           take_room_out_of_order, return_condition)
  SELECT $1, $2, NULLIF($3, '')::uuid, $4, $5, $6, $7, $8, $9, $8, now() + $10::int8 * interval '1 second',
         NULLIF($11, ''), NULLIF($12, ''), $13::bool, $14
  WHERE EXISTS (SELECT 1 FROM rooms r WHERE r.property_id = $1 AND r.number = $2)
    AND ($3 = '' OR EXISTS (SELECT 1 FROM equipment e WHERE e.id = NULLIF($3, '')::uuid
                                                        AND e.property_id = $1 AND e.room_number = $2))
  ON CONFLICT (request_id) DO NOTHING
  RETURNING i.*),
created AS (
  INSERT INTO issue_events AS ev (issue_id, actor, type, to_value, note)
  SELECT id, $8, 'CREATED', 'OPEN', $4 FROM issue
  RETURNING ev.*)
SELECT {{issue_columns}}, {{issue_event_columns}} FROM issue i CROSS JOIN created ev
