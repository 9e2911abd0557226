-- $1 property id.
{{property_select}}
WHERE p.id = $1
