-- $1 property id, $2 room number. Locks the room whose own gallery a write changes, first in the
-- lock order (docs/performance.md#lock-order): gallery writes of one owner run one after the other.
SELECT number FROM rooms WHERE property_id = $1 AND number = $2 FOR NO KEY UPDATE
