-- After a block write: the room's out-of-order state as it holds now (migration 0017). $1 property,
-- $2 room number.
SELECT refresh_rooms_out_of_order($1, ARRAY[$2::text], now()) AS changed
