-- The columns every timeline statement returns (alias ev), in the order of issue_event_columns in
-- issues/issue_sql.h; ReadIssueEvent reads them by those names.
ev.id::text AS event_id, (extract(epoch FROM ev.at) * 1000000)::int8 AS at_micros, ev.actor, ev.type,
ev.from_value, ev.to_value, ev.note, ev.field
