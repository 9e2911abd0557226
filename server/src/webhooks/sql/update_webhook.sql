-- Changes subscription $1: url $2, resource types $3, property $4, full view $5, state $6,
-- disabled reason $7, diff view $9 (webhook_sql.h, StoredView), room changes $10 (1.5.0). A
-- resume ($8) makes the next attempt due at once with a fresh schedule.
UPDATE webhooks
   SET url = $2, resource_types = $3::text[], property_id = $4, full_view = $5::boolean, diff_view = $9::boolean,
       room_changes = $10,
       state = $6, disabled_reason = $7, updated_at = now(),
       batch_attempts = CASE WHEN $8::boolean THEN 0 ELSE batch_attempts END,
       next_attempt_at = CASE WHEN $8::boolean THEN now() ELSE next_attempt_at END
 WHERE id = $1::uuid
RETURNING {{webhook_columns}}
