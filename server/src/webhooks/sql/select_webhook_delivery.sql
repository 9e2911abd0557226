-- One logged delivery $2 of subscription $1, with the subscription's secrets, URL and filters.
SELECT d.batch_id, d.cursor_after, d.cursor_through, w.url, w.secret,
       CASE WHEN w.previous_secret_until > now() THEN w.previous_secret END AS previous_secret, w.resource_types,
       w.property_id, w.full_view, w.diff_view, w.room_changes
  FROM webhook_deliveries d
  JOIN webhooks w ON w.id = d.webhook_id
 WHERE d.webhook_id = $1::uuid AND d.id = $2::bigint
