-- Issue groups of a window: its whole days from the per-day rollup and the deltas not folded yet
-- (migration 0009; cheaper than issue_day_counters_current, which sums every day first), its
-- partial days from the issues. $1 property ('' for all), $2..$7 the window (_whole_days.sql,
-- _partial_days.sql).
SELECT {{issue_group_columns}}
FROM (SELECT status, priority, category, property_id, sum(issues) AS issues, sum(resolved) AS resolved,
             sum(resolve_seconds) AS resolve_seconds, sum(responded) AS responded,
             sum(response_seconds) AS response_seconds, sum(created_epoch_sum) AS created_epoch_sum
      FROM (SELECT status, priority, category, property_id, issues, resolved, resolve_seconds, responded,
                   response_seconds, created_epoch_sum
            FROM (SELECT {{day_counter_columns}} FROM issue_day_counters
                  UNION ALL SELECT {{day_counter_columns}} FROM issue_day_counter_deltas) d
            WHERE {{whole_days}} AND ($1 = '' OR property_id = $1)
            UNION ALL
            SELECT i.status, i.priority, i.category, i.property_id, 1, (i.resolved_at IS NOT NULL)::int,
                   coalesce(date_part('epoch', i.resolved_at - i.created_at), 0), (i.first_response_at IS NOT NULL)::int,
                   coalesce(date_part('epoch', i.first_response_at - i.created_at), 0), date_part('epoch', i.created_at)
            FROM issues i WHERE {{partial_days}} AND ($1 = '' OR i.property_id = $1)) u
      GROUP BY 1, 2, 3, 4) g
WHERE issues <> 0
