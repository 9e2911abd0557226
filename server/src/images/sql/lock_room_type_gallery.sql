-- $1 room type id. Locks the room type whose gallery a write changes, first in the lock order
-- (docs/performance.md#lock-order): gallery writes of one owner run one after the other.
SELECT id FROM room_types WHERE id = $1 FOR NO KEY UPDATE
