id::text AS id, url, resource_types, property_id, full_view, diff_view, state, disabled_reason, delivered_through,
(extract(epoch FROM created_at) * 1000000)::bigint AS created_micros,
(extract(epoch FROM updated_at) * 1000000)::bigint AS updated_micros, room_changes
