-- A new subscription: url $1, resource types $2 (text[]), property $3, full view $4, secret $5,
-- cursor $6.
INSERT INTO webhooks (url, resource_types, property_id, full_view, secret, delivered_through)
VALUES ($1, $2::text[], $3, $4::boolean, $5, $6::bigint)
RETURNING {{webhook_columns}}
