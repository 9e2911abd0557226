-- $1 property id. Locks every room of the property for an import (first rooms, then room types:
-- the order of room updates, docs/performance.md#write-path).
SELECT number FROM rooms WHERE property_id = $1 ORDER BY number FOR NO KEY UPDATE
