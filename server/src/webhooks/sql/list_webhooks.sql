-- A page of subscriptions, oldest first, after the page key ($1 created micros as text, '' for the
-- first page; $2 the id), at most $3 rows.
SELECT {{webhook_columns}}
  FROM webhooks
 WHERE $1::text = ''
    OR (created_at, id) > ('epoch'::timestamptz + nullif($1::text, '')::bigint * interval '1 microsecond',
                           nullif($2::text, '')::uuid)
 ORDER BY created_at, id
 LIMIT $3::integer
