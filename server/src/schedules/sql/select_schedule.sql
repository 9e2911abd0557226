-- $1 schedule id.
{{schedule_select}}
WHERE s.id = $1::uuid
