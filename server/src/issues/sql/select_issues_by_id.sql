-- BatchGetIssues: $1 issue ids (uuid[]). The issues of them that exist, in the order of $1, in
-- one statement whatever their number.
SELECT {{issue_columns}}
FROM unnest($1::uuid[]) WITH ORDINALITY AS asked(issue_id, ord) JOIN issues i ON i.id = asked.issue_id
ORDER BY asked.ord
