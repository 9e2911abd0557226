-- $1 property id, $2 room number. Locks the room an update changes (first in the lock order).
SELECT number FROM rooms WHERE property_id = $1 AND number = $2 FOR NO KEY UPDATE
