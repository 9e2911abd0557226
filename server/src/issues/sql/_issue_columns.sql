-- The columns every issue statement returns (alias i), in the order of issue_columns in
-- issues/issue_sql.h; ReadIssue reads them by those names. Timestamps as epoch microseconds.
i.id::text AS id, i.property_id, i.room_number, coalesce(i.equipment_id::text, '') AS equipment_id, i.title,
i.description, i.category, i.priority, i.status, i.status_reason, i.reported_by, i.assignee,
i.take_room_out_of_order,
(extract(epoch FROM i.created_at) * 1000000)::int8 AS created_at_micros,
(extract(epoch FROM i.updated_at) * 1000000)::int8 AS updated_at_micros,
(extract(epoch FROM i.resolved_at) * 1000000)::int8 AS resolved_at_micros,
(extract(epoch FROM i.first_response_at) * 1000000)::int8 AS first_response_at_micros,
(extract(epoch FROM i.resolve_by) * 1000000)::int8 AS resolve_by_micros,
(i.status IN {{open_issue_statuses}} AND i.resolve_by < now()) AS overdue, i.updated_by, i.version,
i.return_condition
