SELECT {{issue_event_columns}} FROM issue_events ev WHERE ev.issue_id = $1::uuid ORDER BY ev.seq
