-- $1 image id, $2 alt text, $3 sort order. The version moves with the row (bump_row_version).
UPDATE images SET alt_text = $2, sort_order = $3::int WHERE id = $1::uuid
