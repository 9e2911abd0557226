-- Nothing for subscription $1 (lease token $2) matched up to seq $3: its cursor moves there and
-- the lease ends.
UPDATE webhooks
   SET delivered_through = greatest(delivered_through, $3::bigint), lease_expires_at = NULL
 WHERE id = $1::uuid AND lease_token = $2::bigint AND batch_id IS NULL
RETURNING id
