-- Batch $3 of subscription $1 failed under lease token $2: the next attempt is due in $10 ms, or
-- with $11 the subscription is disabled for reason $12; the cursor stays; the lease ends; the
-- attempt is logged ($4 attempt, $5 at micros, $6 duration ms, $7 status or 0, $8 error class,
-- $9 response prefix, $13 cursor before, $14 batch end). Nothing when the lease was taken over.
WITH failed AS (
  UPDATE webhooks
     SET batch_attempts = $4::integer, next_attempt_at = now() + $10::bigint * interval '1 millisecond',
         state = CASE WHEN $11::boolean THEN 'DISABLED' ELSE state END,
         disabled_reason = CASE WHEN $11::boolean THEN $12 ELSE disabled_reason END,
         updated_at = CASE WHEN $11::boolean THEN now() ELSE updated_at END,
         lease_expires_at = NULL
   WHERE id = $1::uuid AND lease_token = $2::bigint AND batch_id = $3
  RETURNING id)
INSERT INTO webhook_deliveries (webhook_id, batch_id, attempt, attempted_at, duration_ms, http_status, error, response,
                                cursor_after, cursor_through, succeeded)
SELECT id, $3, $4::integer, 'epoch'::timestamptz + $5::bigint * interval '1 microsecond', $6::integer,
       $7::integer, $8, $9, $13::bigint, $14::bigint, false
  FROM failed
RETURNING webhook_id
