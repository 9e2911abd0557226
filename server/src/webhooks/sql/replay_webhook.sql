-- Subscription $1 delivers again after seq $2: the batch in flight is dropped, the cursor moves,
-- the next attempt is due at once, and the lease token is raised so that a sender in the middle of
-- a delivery can record nothing.
UPDATE webhooks
   SET delivered_through = $2::bigint, batch_id = NULL, batch_through = NULL, batch_body = NULL, batch_attempts = 0,
       next_attempt_at = now(), lease_token = lease_token + 1, lease_expires_at = NULL, updated_at = now()
 WHERE id = $1::uuid
RETURNING {{webhook_columns}}
