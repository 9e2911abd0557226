-- The room overview's open issues, newest first. $1 property, $2 room number, $3 limit.
SELECT {{issue_columns}} FROM issues i
WHERE i.property_id = $1 AND i.room_number = $2 AND i.status IN {{open_issue_statuses}}
ORDER BY i.created_at DESC, i.id DESC LIMIT $3::int
