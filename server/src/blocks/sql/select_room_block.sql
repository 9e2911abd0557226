SELECT {{room_block_columns}} FROM room_blocks b WHERE b.id = $1::uuid
