-- A new secret $2 for subscription $1; the current one keeps signing for $3 milliseconds.
UPDATE webhooks
   SET previous_secret = secret, previous_secret_until = now() + $3::bigint * interval '1 millisecond',
       secret = $2, updated_at = now()
 WHERE id = $1::uuid
RETURNING {{webhook_columns}}
