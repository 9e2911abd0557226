-- One subscription by id ($1), locked for an update.
SELECT {{webhook_columns}} FROM webhooks WHERE id = $1::uuid FOR UPDATE
