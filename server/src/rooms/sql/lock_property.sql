-- $1 property id. Locks the property an update changes (first in the lock order:
-- docs/performance.md#write-path).
SELECT id FROM properties WHERE id = $1 FOR NO KEY UPDATE
