-- Cancels the block (row locked by select_room_block_for_update). $1 id, $2 actor.
UPDATE room_blocks AS b
SET status = 'CANCELLED', cancelled_at = now(), updated_by = $2, updated_at = now()
WHERE b.id = $1::uuid
RETURNING {{room_block_columns}}
