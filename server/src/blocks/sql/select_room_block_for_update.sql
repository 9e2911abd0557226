-- The first lock of an update or cancel: the block's own row.
SELECT {{room_block_columns}} FROM room_blocks b WHERE b.id = $1::uuid FOR UPDATE
