-- The dashboard's breakdowns: rows (dimension, key, count) for 'category', 'floor', 'condition'
-- (housekeeping, 1.4.0), 'equipment' and 'open_priority'. $1 property ('' for all). Retired rooms are no longer part of the
-- inventory (docs/room-data.md#retirement).
SELECT 'category', t.category, count(*)::int FROM rooms r JOIN room_types t ON t.id = r.room_type_id
WHERE r.retired_at IS NULL AND ($1 = '' OR r.property_id = $1) GROUP BY t.category
UNION ALL
SELECT 'floor', r.floor::text, count(*)::int FROM rooms r
WHERE r.retired_at IS NULL AND ($1 = '' OR r.property_id = $1) GROUP BY r.floor
UNION ALL
SELECT 'condition', r.housekeeping_condition, count(*)::int FROM rooms r
WHERE r.retired_at IS NULL AND ($1 = '' OR r.property_id = $1) GROUP BY r.housekeeping_condition
UNION ALL
SELECT 'equipment', e.status, count(*)::int FROM equipment e WHERE ($1 = '' OR e.property_id = $1) GROUP BY e.status
UNION ALL
SELECT 'open_priority', c.priority, sum(c.issues)::int FROM issue_counters_current c
WHERE c.status IN {{open_issue_statuses}} AND ($1 = '' OR c.property_id = $1) GROUP BY c.priority
