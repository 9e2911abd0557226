-- $1 completion id.
{{completion_select}}
WHERE c.id = $1::uuid
