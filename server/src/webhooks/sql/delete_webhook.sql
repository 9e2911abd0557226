-- Removes subscription $1 (its delivery log goes with it).
DELETE FROM webhooks WHERE id = $1::uuid RETURNING id
