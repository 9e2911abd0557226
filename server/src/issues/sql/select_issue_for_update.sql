-- The first lock of an update: the issue's own row (docs/performance.md, "Write path").
SELECT {{issue_columns}} FROM issues i WHERE i.id = $1::uuid FOR UPDATE
