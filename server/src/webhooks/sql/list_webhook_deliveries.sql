-- A page of the delivery log of subscription $1, newest first: only failures when $2, before
-- attempt id $3 ('' for the first page), at most $4 rows.
SELECT id, batch_id, attempt, (extract(epoch FROM attempted_at) * 1000000)::bigint AS attempted_micros, duration_ms,
       http_status, error, response, cursor_after, cursor_through, succeeded
  FROM webhook_deliveries
 WHERE webhook_id = $1::uuid
   AND (NOT $2::boolean OR NOT succeeded)
   AND ($3::text = '' OR id < nullif($3::text, '')::bigint)
 ORDER BY id DESC
 LIMIT $4::integer
