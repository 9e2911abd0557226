-- Disables subscription $1 under lease token $2 for reason $3 (its cursor fell out of the change
-- log's retention); the cursor is kept.
UPDATE webhooks
   SET state = 'DISABLED', disabled_reason = $3, updated_at = now(), lease_expires_at = NULL
 WHERE id = $1::uuid AND lease_token = $2::bigint
RETURNING id
