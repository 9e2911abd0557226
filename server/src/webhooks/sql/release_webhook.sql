-- Ends lease $2 of subscription $1 early (the sender is stopping or failed before sending).
UPDATE webhooks SET lease_expires_at = NULL WHERE id = $1::uuid AND lease_token = $2::bigint
