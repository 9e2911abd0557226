-- The row (locked by select_issue_for_update) and its timeline entries in one statement; the
-- events go in as parallel arrays, in order. $1 id, $2 title, $3 description, $4 category,
-- $5 priority, $6 status, $7 status reason, $8 assignee, $9 equipment id or '',
-- $10 take_room_out_of_order, $11 actor, $12 resolved_at: 'set' | 'clear' | 'keep',
-- $13 first response now, $14 resolution target seconds, $15..$19 event types, fields, from, to, notes.
WITH updated AS (
  UPDATE issues AS i
  SET title = $2, description = $3, category = $4, priority = $5, status = $6, status_reason = $7,
      assignee = $8, equipment_id = NULLIF($9, '')::uuid, take_room_out_of_order = $10::bool,
      updated_by = $11, updated_at = now(),
      resolved_at = CASE $12::text WHEN 'set' THEN now() WHEN 'clear' THEN NULL ELSE resolved_at END,
      first_response_at = CASE WHEN $13::bool THEN coalesce(first_response_at, now()) ELSE first_response_at END,
      resolve_by = created_at + $14::int8 * interval '1 second', version = version + 1
  WHERE id = $1::uuid
  RETURNING i.*),
events AS (
  INSERT INTO issue_events (issue_id, actor, type, field, from_value, to_value, note)
  SELECT $1::uuid, $11, e.type, e.field, e.from_value, e.to_value, e.note
  FROM unnest($15::text[], $16::text[], $17::text[], $18::text[], $19::text[])
       WITH ORDINALITY AS e (type, field, from_value, to_value, note, n)
  ORDER BY e.n)
SELECT {{issue_columns}} FROM updated i
