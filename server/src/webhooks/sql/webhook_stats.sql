-- Every subscription's state and delivery lag: the age in seconds of the oldest change its filter
-- matches beyond its cursor (0 when it is caught up).
SELECT w.id::text AS id, w.state,
       coalesce(extract(epoch FROM now() - c.committed_at), 0)::float8 AS lag_seconds
  FROM webhooks w
  LEFT JOIN LATERAL (
    SELECT committed_at
      FROM change_log
     WHERE seq > w.delivered_through
       AND (cardinality(w.resource_types) = 0 OR resource_type = ANY (w.resource_types))
       AND (w.property_id = '' OR property_id = w.property_id)
       AND room_change_wanted(w.room_changes, resource_type, kind, changed_fields)
     ORDER BY seq
     LIMIT 1) c ON true
