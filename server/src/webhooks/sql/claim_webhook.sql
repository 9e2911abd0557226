-- Takes the lease of one subscription due for a delivery: active, its next attempt due, its lease
-- free or expired, and a batch in flight or changes beyond its cursor. $1 the owner (replica and
-- thread), $2 the lease in milliseconds. Every lease raises lease_token: the fencing token every
-- later write of this lease must present.
UPDATE webhooks w
   SET lease_owner = $1, lease_expires_at = now() + $2::bigint * interval '1 millisecond',
       lease_token = w.lease_token + 1
 WHERE w.id = (SELECT d.id
                 FROM webhooks d
                WHERE d.state = 'ACTIVE' AND d.next_attempt_at <= now()
                  AND (d.lease_expires_at IS NULL OR d.lease_expires_at < now())
                  AND (d.batch_id IS NOT NULL
                       OR d.delivered_through < (SELECT value FROM change_log_state WHERE name = 'head'))
                ORDER BY d.next_attempt_at
                LIMIT 1
                  FOR UPDATE SKIP LOCKED)
RETURNING w.id::text AS id, w.lease_token, w.url, w.secret,
          CASE WHEN w.previous_secret_until > now() THEN w.previous_secret END AS previous_secret, w.resource_types, w.property_id, w.full_view,
          w.diff_view, w.room_changes, w.delivered_through, w.batch_id, w.batch_through, w.batch_body, w.batch_attempts
