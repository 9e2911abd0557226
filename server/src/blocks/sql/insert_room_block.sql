-- One block, with its room (active) and issue (of the same room) checked in the same statement:
-- no row means the request_id was used already or a reference is missing or retired
-- (api::InsertOnce tells which). An overlapping OUT_OF_ORDER block fails it with 23P01.
-- $1 property, $2 room, $3 type, $4 start date, $5 end date or '', $6 reason, $7 issue id or '',
-- $8 actor, $9 request id or '', $10 request hash or '', $11 return condition.
INSERT INTO room_blocks AS b (property_id, room_number, type, start_date, end_date, reason, issue_id, updated_by,
                              request_id, request_hash, return_condition)
SELECT $1, $2, $3, $4::date, NULLIF($5, '')::date, $6, NULLIF($7, '')::uuid, $8, NULLIF($9, ''), NULLIF($10, ''), $11
WHERE EXISTS (SELECT 1 FROM rooms r WHERE r.property_id = $1 AND r.number = $2 AND r.retired_at IS NULL)
  AND ($7 = '' OR EXISTS (SELECT 1 FROM issues i WHERE i.id = NULLIF($7, '')::uuid
                                                   AND i.property_id = $1 AND i.room_number = $2))
ON CONFLICT (request_id) DO NOTHING
RETURNING {{room_block_columns}}
