-- The signing secret of subscription $1 (never logged).
SELECT secret FROM webhooks WHERE id = $1::uuid
