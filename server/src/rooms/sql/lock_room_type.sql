-- $1 room type id. Locks the room type an update changes (first in the lock order).
SELECT id FROM room_types WHERE id = $1 FOR NO KEY UPDATE
