-- $1 the ids of a gallery in their new order (a text array of UUIDs): each gets its position
-- (0, 1, ...) as sort order. Rows already in place are not written, so they keep their version
-- and put no change on the feed.
UPDATE images i SET sort_order = o.position - 1
FROM unnest($1::uuid[]) WITH ORDINALITY AS o(id, position)
WHERE i.id = o.id AND i.sort_order <> o.position - 1
