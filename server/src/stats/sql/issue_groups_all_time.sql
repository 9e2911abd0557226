-- Issue groups by (status, priority, category, property) of all time, from the rollups triggers
-- keep: the columns of IssueGroup. $1 property ('' for all).
SELECT {{issue_group_columns}} FROM issue_counters_current WHERE issues <> 0 AND ($1 = '' OR property_id = $1)
