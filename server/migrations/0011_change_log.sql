-- The change log (docs/changes.md): every change to a resource the API exposes, in commit order,
-- read through one cursor (change_log.seq).
--
-- Writers never number changes themselves: sequence values are handed out before commit, so a
-- reader of "seq > cursor" would skip a change that commits after a later-numbered one. Instead a
-- row trigger appends each change to change_staging (an INSERT with no unique key: writers never
-- wait for each other there), and sequence_changes(), run by one server at a time under an
-- advisory lock, moves the staged rows its snapshot sees (all committed) into change_log,
-- numbered consecutively in staging order, in one transaction. Each run commits before the next
-- starts, so a reader that saw seq N has already seen or will never miss anything below N.
-- See docs/decisions.md ("Change log: staged, then sequenced").

CREATE TABLE change_staging (
  staging_id     bigint GENERATED ALWAYS AS IDENTITY,
  changed_at     timestamptz NOT NULL DEFAULT now(),
  resource_type  text NOT NULL,
  resource_id    text NOT NULL,
  property_id    text NOT NULL,
  kind           text NOT NULL,
  changed_fields text[] NOT NULL,
  version        text NOT NULL,
  actor          text NOT NULL,
  resource       jsonb NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);

CREATE TABLE change_log (
  seq            bigint PRIMARY KEY,
  committed_at   timestamptz NOT NULL,
  resource_type  text NOT NULL CHECK (resource_type IN ('PROPERTY', 'ROOM_TYPE', 'ROOM', 'IMAGE', 'EQUIPMENT',
                                                         'SCHEDULE', 'ISSUE')),
  resource_id    text NOT NULL,
  property_id    text NOT NULL,
  kind           text NOT NULL CHECK (kind IN ('CREATED', 'UPDATED', 'DELETED')),
  changed_fields text[] NOT NULL,
  -- The row's version (properties, room types, rooms, issues) or a digest of the row (the others);
  -- the server derives the resource's etag from it.
  version        text NOT NULL,
  actor          text NOT NULL,
  resource       jsonb NOT NULL
);
-- Filtered pages and watches read in seq order within a type or a property.
CREATE INDEX change_log_type ON change_log (resource_type, seq);
CREATE INDEX change_log_property ON change_log (property_id, seq);

-- head: the newest seq handed out; pruned_through: every seq up to it is gone (retention). One
-- row each, so the sequencer and the pruner never wait for each other.
CREATE TABLE change_log_state (
  name  text PRIMARY KEY CHECK (name IN ('head', 'pruned_through')),
  value bigint NOT NULL
);
INSERT INTO change_log_state VALUES ('head', 0), ('pruned_through', 0);

-- Columns that only record how a row was written: a change to them alone is no change.
CREATE FUNCTION change_bookkeeping_columns() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT ARRAY['version', 'updated_at', 'updated_by', 'request_id', 'request_hash'] $$;

-- One row trigger for every exposed table; TG_ARGV[0] is the resource type.
CREATE FUNCTION stage_change() RETURNS trigger LANGUAGE plpgsql AS $$
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
  INSERT INTO change_staging (resource_type, resource_id, property_id, kind, changed_fields, version, actor, resource)
  VALUES (TG_ARGV[0], id, property, change, fields, version, coalesce(actor, ''), row_json);
  RETURN NULL;
END
$$;

DO $$
DECLARE
  source record;
BEGIN
  FOR source IN SELECT * FROM (VALUES ('properties', 'PROPERTY'), ('room_types', 'ROOM_TYPE'), ('rooms', 'ROOM'),
                                      ('images', 'IMAGE'), ('equipment', 'EQUIPMENT'),
                                      ('maintenance_schedules', 'SCHEDULE'), ('issues', 'ISSUE')) AS t(tbl, type) LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I
                    FOR EACH ROW EXECUTE FUNCTION stage_change(%L)', source.tbl || '_stage_change', source.tbl,
                   source.type);
  END LOOP;
END
$$;

-- Moves the committed staged changes into change_log; returns how many (-1 when another server's
-- sequencer holds the lock). committed_at is the time they entered the log, milliseconds after
-- their commit, and never decreases along seq.
CREATE FUNCTION sequence_changes() RETURNS bigint LANGUAGE plpgsql AS $$
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
                          actor, resource)
  SELECT head + row_number() OVER (ORDER BY staging_id), greatest(clock_timestamp(), (SELECT max(committed_at) FROM
           change_log WHERE seq = head)), resource_type, resource_id, property_id, kind, changed_fields, version,
         actor, resource
    FROM staged;
  GET DIAGNOSTICS moved = ROW_COUNT;
  IF moved > 0 THEN
    UPDATE change_log_state SET value = head + moved WHERE name = 'head';
  END IF;
  RETURN moved;
END
$$;

-- Deletes up to batch of the oldest changes committed before now() - retention; returns how many
-- (0 when another server is pruning). Short transactions, and no lock a writer or the sequencer
-- waits for: it deletes only rows the sequencer has finished with.
CREATE FUNCTION prune_change_log(retention interval, batch integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  last_pruned bigint;
  pruned      bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('hotel.prune_change_log')) THEN
    RETURN 0;
  END IF;
  WITH oldest AS (SELECT seq, committed_at FROM change_log ORDER BY seq LIMIT batch),
  doomed AS (DELETE FROM change_log WHERE seq IN (SELECT seq FROM oldest WHERE committed_at < now() - retention)
             RETURNING seq)
  SELECT count(*), max(seq) INTO pruned, last_pruned FROM doomed;
  IF pruned > 0 THEN
    UPDATE change_log_state SET value = greatest(value, last_pruned) WHERE name = 'pruned_through';
  END IF;
  RETURN pruned;
END
$$;
