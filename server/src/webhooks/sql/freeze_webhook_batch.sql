-- Freezes the batch of subscription $1 under lease token $2: id $3, through seq $4, body $5. Every
-- retry sends these bytes under this id.
UPDATE webhooks
   SET batch_id = $3, batch_through = $4::bigint, batch_body = $5, batch_attempts = 0
 WHERE id = $1::uuid AND lease_token = $2::bigint AND batch_id IS NULL
RETURNING id
