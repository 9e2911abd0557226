-- $1 equipment id.
{{equipment_select}}
WHERE e.id = $1::uuid
