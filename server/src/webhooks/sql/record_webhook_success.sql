-- Batch $3 of subscription $1 was answered 2xx under lease token $2: the cursor advances to the
-- batch's end, the lease ends, and the attempt is logged, in one statement (nothing when the
-- lease was taken over). $4 attempt, $5 attempted at (micros), $6 duration ms, $7 status,
-- $8 response prefix, $9 cursor before.
WITH advanced AS (
  UPDATE webhooks
     SET delivered_through = batch_through, batch_id = NULL, batch_through = NULL, batch_body = NULL,
         batch_attempts = 0, next_attempt_at = now(), lease_expires_at = NULL
   WHERE id = $1::uuid AND lease_token = $2::bigint AND batch_id = $3
  RETURNING id, delivered_through)
INSERT INTO webhook_deliveries (webhook_id, batch_id, attempt, attempted_at, duration_ms, http_status, error, response,
                                cursor_after, cursor_through, succeeded)
SELECT id, $3, $4::integer, 'epoch'::timestamptz + $5::bigint * interval '1 microsecond', $6::integer,
       $7::integer, '', $8, $9::bigint, delivered_through, true
  FROM advanced
RETURNING webhook_id
