-- $1 room type id.
{{room_type_select}}
WHERE t.id = $1
