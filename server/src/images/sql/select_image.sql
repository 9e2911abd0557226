-- One image by id ($1, a lower-case UUID), its files in a fixed order.
{{image_select}}
WHERE i.id = $1::uuid
ORDER BY f.variant, f.format
