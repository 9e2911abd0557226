-- One subscription by id ($1, a UUID as text).
SELECT {{webhook_columns}} FROM webhooks WHERE id = $1::uuid
