-- $1 property id, $2 room number. Locks the room an issue takes or releases (second in the lock
-- order: docs/performance.md#write-path) and tells whether it is out of order, and whether it is
-- retired (1.1.0: a retired room is never taken out of order).
SELECT out_of_order, retired_at IS NOT NULL AS retired FROM rooms
WHERE property_id = $1 AND number = $2 FOR NO KEY UPDATE
