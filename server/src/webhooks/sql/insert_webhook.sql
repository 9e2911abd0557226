-- A new subscription: url $1, resource types $2 (text[]), property $3, full view $4, secret $5,
-- cursor $6, diff view $7 (webhook_sql.h, StoredView), room changes $8 (1.5.0: '' every one).
INSERT INTO webhooks (url, resource_types, property_id, full_view, secret, delivered_through, diff_view, room_changes)
VALUES ($1, $2::text[], $3, $4::boolean, $5, $6::bigint, $7::boolean, $8)
RETURNING {{webhook_columns}}
