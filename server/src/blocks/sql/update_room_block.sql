-- The block's dates and reason (row locked by select_room_block_for_update). An overlap with
-- another OUT_OF_ORDER block fails it with 23P01.
-- $1 id, $2 start date, $3 end date or '', $4 reason, $5 actor.
UPDATE room_blocks AS b
SET start_date = $2::date, end_date = NULLIF($3, '')::date, reason = $4, updated_by = $5, updated_at = now()
WHERE b.id = $1::uuid
RETURNING {{room_block_columns}}
