-- Logs a resend of batch $2 to subscription $1 (attempt 0): at $3 (micros), $4 ms, status $5 or 0,
-- error class $6, response $7, range ($8, $9], succeeded $10. The cursor does not move.
INSERT INTO webhook_deliveries (webhook_id, batch_id, attempt, attempted_at, duration_ms, http_status, error, response,
                                cursor_after, cursor_through, succeeded)
VALUES ($1::uuid, $2, 0, 'epoch'::timestamptz + $3::bigint * interval '1 microsecond', $4::integer, $5::integer, $6,
        $7, $8::bigint, $9::bigint, $10::boolean)
RETURNING id, batch_id, attempt, (extract(epoch FROM attempted_at) * 1000000)::bigint AS attempted_micros, duration_ms,
          http_status, error, response, cursor_after, cursor_through, succeeded
