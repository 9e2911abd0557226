-- $1 property id. Locks the property whose policy an update changes (first in the lock order:
-- docs/performance.md#write-path), so racing updates, the first of which inserts the row, queue
-- one after the other.
SELECT id FROM properties WHERE id = $1 FOR NO KEY UPDATE
