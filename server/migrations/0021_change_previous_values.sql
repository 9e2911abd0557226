-- Previous values on the change log (issue 49, 1.4.0): the feed's view DIFF (docs/changes.md) shows,
-- for an update, the changed fields' values before the change beside their values after. The row
-- trigger is the only place that sees the old row, so it records them: `previous` holds, for an
-- UPDATED change, the stored values of its changed_fields before the change (an object of those
-- keys; `timeline` is no column and has none). A CREATED change has none, and a DELETED one needs
-- none: its `resource` has always been the last record, which DIFF shows as `previous`. Null on
-- changes logged before this migration, which DIFF shows without previous values.
--
-- A webhook's view DIFF is diff_view (with full_view also true, so that a server of the previous
-- release, which knows full_view only, delivers such a subscription in view FULL during a rolling
-- deploy, and reads it back as FULL; one that sets its view to BASIC clears full_view, which the
-- new server reads as BASIC too).
--
-- Expand only: nullable columns (no rewrite, no default); a server of the previous release writes
-- and reads without them. The trigger and both sequencers (0013's sequence_changes(), which servers
-- up to 1.2 call, and 0019's sequence_changes(batch)) are replaced in place with the same
-- signatures, so the previous values are recorded whichever release writes or sequences.
SET LOCAL lock_timeout = '5s';

ALTER TABLE change_staging ADD COLUMN previous jsonb;
ALTER TABLE change_log ADD COLUMN previous jsonb;
ALTER TABLE webhooks ADD COLUMN diff_view boolean;

CREATE OR REPLACE FUNCTION stage_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  row_json  jsonb;
  old_json  jsonb;
  fields    text[] := '{}';
  previous  jsonb;
  change    text := CASE TG_OP WHEN 'INSERT' THEN 'CREATED' WHEN 'UPDATE' THEN 'UPDATED' ELSE 'DELETED' END;
  id        text;
  property  text;
  version   text;
  actor     text;
BEGIN
  row_json := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END) - 'request_hash';
  IF TG_OP = 'UPDATE' THEN
    old_json := to_jsonb(OLD);
    -- The changed fields and, for the view DIFF, their values before the change.
    SELECT coalesce(array_agg(key ORDER BY key), '{}'), coalesce(jsonb_object_agg(key, old_json -> key), '{}')
      INTO fields, previous
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
                              trace_id, previous)
  VALUES (TG_ARGV[0], id, property, change, fields, version, coalesce(actor, ''), row_json,
          nullif(current_setting('hotel.trace_id', true), ''), previous);
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
                          actor, resource, trace_id, previous)
  SELECT head + row_number() OVER (ORDER BY staging_id), greatest(clock_timestamp(), (SELECT max(committed_at) FROM
           change_log WHERE seq = head)), resource_type, resource_id, property_id, kind, changed_fields, version,
         actor, resource, trace_id, previous
    FROM staged;
  GET DIAGNOSTICS moved = ROW_COUNT;
  IF moved > 0 THEN
    UPDATE change_log_state SET value = head + moved WHERE name = 'head';
  END IF;
  RETURN moved;
END
$$;

CREATE OR REPLACE FUNCTION sequence_changes(batch integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  head  bigint;
  moved bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('hotel.sequence_changes')) THEN
    RETURN -1;
  END IF;
  SELECT value INTO head FROM change_log_state WHERE name = 'head' FOR UPDATE;
  -- By ctid: change_staging has no key (writers insert and never conflict), so a TID scan.
  WITH staged AS (DELETE FROM change_staging
                   WHERE ctid = ANY (ARRAY(SELECT ctid FROM change_staging ORDER BY staging_id LIMIT batch))
                  RETURNING *)
  INSERT INTO change_log (seq, committed_at, resource_type, resource_id, property_id, kind, changed_fields, version,
                          actor, resource, trace_id, previous)
  SELECT head + row_number() OVER (ORDER BY staging_id), greatest(clock_timestamp(), (SELECT max(committed_at) FROM
           change_log WHERE seq = head)), resource_type, resource_id, property_id, kind, changed_fields, version,
         actor, resource, trace_id, previous
    FROM staged;
  GET DIAGNOSTICS moved = ROW_COUNT;
  IF moved > 0 THEN
    UPDATE change_log_state SET value = head + moved WHERE name = 'head';
  END IF;
  RETURN moved;
END
$$;
