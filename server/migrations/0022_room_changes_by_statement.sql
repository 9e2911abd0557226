-- The change log's entries of room updates written once per statement (docs/performance.md,
-- "Housekeeping"): a bulk housekeeping set updates up to 1,000 rooms in one statement, and 0021's
-- row trigger spent ~50 µs a room converting, diffing and inserting one row at a time. Same entries
-- as stage_change('ROOM') (0021) makes for an update: the changed fields but the bookkeeping ones,
-- their previous values, the row after, its version, the actor and the trace id; none for a room
-- rewritten unchanged. Creates and deletes of rooms keep the row trigger. Without an actor set, each
-- room's own updated_by is its change's actor.
SET LOCAL lock_timeout = '5s';

-- MATERIALIZED: each row is converted to jsonb once (flattened, the diff converted the old row again
-- for every field it compared).
CREATE FUNCTION stage_room_updates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH n AS MATERIALIZED (SELECT r.property_id, r.number, to_jsonb(r) - 'request_hash' AS row_json FROM new_rooms r),
  o AS MATERIALIZED (SELECT r.property_id, r.number, to_jsonb(r) AS old_json FROM old_rooms r)
  INSERT INTO change_staging (resource_type, resource_id, property_id, kind, changed_fields, version, actor, resource,
                              trace_id, previous)
  SELECT 'ROOM', n.number, n.property_id, 'UPDATED', d.fields, n.row_json ->> 'version',
         coalesce(nullif(current_setting('hotel.actor', true), ''), nullif(n.row_json ->> 'updated_by', ''), ''),
         n.row_json, nullif(current_setting('hotel.trace_id', true), ''), d.previous
  FROM n JOIN o USING (property_id, number)
  CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(e.key ORDER BY e.key), '{}') AS fields,
           coalesce(jsonb_object_agg(e.key, o.old_json -> e.key), '{}') AS previous
    FROM jsonb_each(n.row_json) AS e(key, value)
    WHERE e.value IS DISTINCT FROM o.old_json -> e.key AND e.key <> ALL (change_bookkeeping_columns())) AS d
  WHERE cardinality(d.fields) > 0
  ORDER BY n.property_id, n.number;
  RETURN NULL;
END
$$;

DROP TRIGGER rooms_stage_change ON rooms;
CREATE TRIGGER rooms_stage_change AFTER INSERT OR DELETE ON rooms
  FOR EACH ROW EXECUTE FUNCTION stage_change('ROOM');
CREATE TRIGGER rooms_stage_updates AFTER UPDATE ON rooms
  REFERENCING OLD TABLE AS old_rooms NEW TABLE AS new_rooms
  FOR EACH STATEMENT EXECUTE FUNCTION stage_room_updates();
