-- Trace ids on the change log (issue 27): each change records the W3C trace id of the request that
-- made it (the server's pool sets hotel.trace_id on the connection before a traced request's
-- write, db/pool.cc), so a change on the feed leads back to the request's log lines. Expand only: nullable
-- columns (no rewrite, no default); a server of the previous release writes and reads without them
-- and its changes carry no trace id. The trigger and the sequencer are replaced in place with the
-- same signatures.
SET LOCAL lock_timeout = '5s';

ALTER TABLE change_staging ADD COLUMN trace_id text;
ALTER TABLE change_log ADD COLUMN trace_id text;

CREATE OR REPLACE FUNCTION stage_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  row_json  jsonb;
  old_json  jsonb;
  fields    text[] := '{}';
  change    text := CASE TG_OP WHEN 'INSERT' THEN 'CREATED' WHEN 'UPDATE' THEN 'UPDATED' ELSE 'DELETED' END;
  id        text;
  property  text;
  version   text;
  actor     text;
BEGIN
  row_json := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END) - 'request_hash';
  IF TG_OP = 'UPDATE' THEN
    old_json := to_jsonb(OLD);
    SELECT coalesce(array_agg(key ORDER BY key), '{}') INTO fields
      FROM jsonb_each(row_json) AS n(key, value)
     WHERE n.value IS DISTINCT FROM old_json -> n.key AND n.key <> ALL (change_bookkeeping_columns());
    -- Every change to an issue appends to its timeline (a comment changes nothing else).
    IF TG_ARGV[0] = 'ISSUE' AND old_json -> 'version' IS DISTINCT FROM row_json -> 'version' THEN
      fields := fields || 'timeline'::text;
    END IF;
    IF cardinality(fields) = 0 THEN
      RETURN NULL;
    END IF;
  END IF;
  CASE TG_ARGV[0]
    WHEN 'PROPERTY' THEN
      id := row_json ->> 'id';
      property := id;
    WHEN 'ROOM' THEN
      id := row_json ->> 'number';
      property := row_json ->> 'property_id';
    WHEN 'IMAGE' THEN
      id := row_json ->> 'id';
      -- A room type's id starts with its property's ("BER1-DBL"); property ids have no '-'.
      property := coalesce(row_json ->> 'property_id', split_part(row_json ->> 'room_type_id', '-', 1));
    ELSE
      id := row_json ->> 'id';
      property := row_json ->> 'property_id';
  END CASE;
  version := coalesce(row_json ->> 'version', md5(row_json::text));
  -- The transaction's actor (db/sql/set_actor.sql); else the one the row names (an issue's
  -- updated_by or reported_by), kept for the rest of the transaction, so the room an issue takes
  -- out of order is changed by the issue's actor too.
  actor := nullif(current_setting('hotel.actor', true), '');
  IF actor IS NULL THEN
    actor := coalesce(nullif(row_json ->> 'updated_by', ''), nullif(row_json ->> 'reported_by', ''));
    IF actor IS NOT NULL THEN
      PERFORM set_config('hotel.actor', actor, true);
    END IF;
  END IF;
  -- The request's trace id (db/pool.cc sets it before a traced request's writes); null for writes
  -- outside a request (hotel-admin, migrations, psql).
  INSERT INTO change_staging (resource_type, resource_id, property_id, kind, changed_fields, version, actor, resource,
                              trace_id)
  VALUES (TG_ARGV[0], id, property, change, fields, version, coalesce(actor, ''), row_json,
          nullif(current_setting('hotel.trace_id', true), ''));
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION sequence_changes() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  head  bigint;
  moved bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('hotel.sequence_changes')) THEN
    RETURN -1;
  END IF;
  SELECT value INTO head FROM change_log_state WHERE name = 'head' FOR UPDATE;
  WITH staged AS (DELETE FROM change_staging RETURNING *)
  INSERT INTO change_log (seq, committed_at, resource_type, resource_id, property_id, kind, changed_fields, version,
                          actor, resource, trace_id)
  SELECT head + row_number() OVER (ORDER BY staging_id), greatest(clock_timestamp(), (SELECT max(committed_at) FROM
           change_log WHERE seq = head)), resource_type, resource_id, property_id, kind, changed_fields, version,
         actor, resource, trace_id
    FROM staged;
  GET DIAGNOSTICS moved = ROW_COUNT;
  IF moved > 0 THEN
    UPDATE change_log_state SET value = head + moved WHERE name = 'head';
  END IF;
  RETURN moved;
END
$$;
