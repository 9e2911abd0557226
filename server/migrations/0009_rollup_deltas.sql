-- Writers no longer queue on shared rollup rows (docs/decisions.md, "Rollups as append-only
-- deltas"). Before, statement-level triggers upserted a few hot counter rows in every writing
-- transaction: every writer waited for the one before it, and a trigger's row locks taken in the
-- middle of a transaction could close a deadlock cycle with a room lock.
--
-- Now a row-level trigger appends the changed issue (or schedule) to a delta table: an INSERT
-- with no unique key, so writers never wait for each other there. fold_rollup_deltas(), run in the
-- background by the server, moves the deltas into the rollup tables in one transaction. Readers
-- add the deltas not yet folded (the *_current views), so every figure is exact as of the last
-- commit: a snapshot sees a delta either still in its table or already in the rollup, never both.

DROP TRIGGER issues_rollups_insert ON issues;
DROP TRIGGER issues_rollups_update ON issues;
DROP TRIGGER issues_rollups_delete ON issues;
DROP TRIGGER schedules_rollups_insert ON maintenance_schedules;
DROP TRIGGER schedules_rollups_update ON maintenance_schedules;
DROP TRIGGER schedules_rollups_delete ON maintenance_schedules;
DROP FUNCTION issue_rollups_apply();
DROP FUNCTION schedule_rollups_apply();
DROP FUNCTION rollup_changes_sql(text);

-- ---- Delta tables: one row per issue (schedule) version entering (+1) or leaving (-1) the rollups.
-- No index and no key: appends never conflict. Emptied every fold, so vacuumed often.
CREATE TABLE issue_rollup_deltas (
  sign              smallint NOT NULL CHECK (sign IN (-1, 1)),
  property_id       text NOT NULL,
  status            text NOT NULL,
  priority          text NOT NULL,
  category          text NOT NULL,
  created_at        timestamptz NOT NULL,
  resolved_at       timestamptz,
  first_response_at timestamptz,
  resolve_by        timestamptz NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);

CREATE TABLE schedule_rollup_deltas (
  sign        smallint NOT NULL CHECK (sign IN (-1, 1)),
  property_id text NOT NULL,
  next_due_on date NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);

CREATE FUNCTION issue_rollup_delta() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO issue_rollup_deltas VALUES (-1, OLD.property_id, OLD.status, OLD.priority, OLD.category,
      OLD.created_at, OLD.resolved_at, OLD.first_response_at, OLD.resolve_by);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO issue_rollup_deltas VALUES (1, NEW.property_id, NEW.status, NEW.priority, NEW.category,
      NEW.created_at, NEW.resolved_at, NEW.first_response_at, NEW.resolve_by);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER issues_rollup_delta AFTER INSERT OR DELETE ON issues
  FOR EACH ROW EXECUTE FUNCTION issue_rollup_delta();
-- Edits that change no rolled-up column (title, assignee, a comment) write no delta.
CREATE TRIGGER issues_rollup_delta_update AFTER UPDATE ON issues FOR EACH ROW
  WHEN ((OLD.property_id, OLD.status, OLD.priority, OLD.category, OLD.created_at, OLD.resolved_at,
         OLD.first_response_at, OLD.resolve_by) IS DISTINCT FROM
        (NEW.property_id, NEW.status, NEW.priority, NEW.category, NEW.created_at, NEW.resolved_at,
         NEW.first_response_at, NEW.resolve_by))
  EXECUTE FUNCTION issue_rollup_delta();

CREATE FUNCTION schedule_rollup_delta() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.active THEN
    INSERT INTO schedule_rollup_deltas VALUES (-1, OLD.property_id, OLD.next_due_on);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.active THEN
    INSERT INTO schedule_rollup_deltas VALUES (1, NEW.property_id, NEW.next_due_on);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER schedules_rollup_delta AFTER INSERT OR DELETE ON maintenance_schedules
  FOR EACH ROW EXECUTE FUNCTION schedule_rollup_delta();
CREATE TRIGGER schedules_rollup_delta_update AFTER UPDATE ON maintenance_schedules FOR EACH ROW
  WHEN ((OLD.property_id, OLD.next_due_on, OLD.active) IS DISTINCT FROM (NEW.property_id, NEW.next_due_on, NEW.active))
  EXECUTE FUNCTION schedule_rollup_delta();

-- ---- Per-day rollups for statistics over a window: whole UTC days of created_at come from here,
-- only the partial first and last day are read from the issues.
CREATE TABLE issue_day_counters (
  property_id       text NOT NULL,
  created_day       date NOT NULL,
  status            text NOT NULL,
  priority          text NOT NULL,
  category          text NOT NULL,
  issues            bigint NOT NULL DEFAULT 0,
  resolved          bigint NOT NULL DEFAULT 0,
  resolve_seconds   float8 NOT NULL DEFAULT 0,
  responded         bigint NOT NULL DEFAULT 0,
  response_seconds  float8 NOT NULL DEFAULT 0,
  created_epoch_sum float8 NOT NULL DEFAULT 0,
  PRIMARY KEY (created_day, property_id, status, priority, category)
);

CREATE TABLE issue_day_duration_buckets (
  property_id text NOT NULL,
  created_day date NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('resolve', 'response')),
  bucket      integer NOT NULL,
  issues      bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (created_day, property_id, kind, bucket)
);

-- ---- What the deltas not yet folded add, per rollup. The fold and the readers share these.
CREATE VIEW issue_day_counter_deltas AS
SELECT property_id, (created_at AT TIME ZONE 'UTC')::date AS created_day, status, priority, category,
       sum(sign)::bigint AS issues,
       coalesce(sum(sign) FILTER (WHERE resolved_at IS NOT NULL), 0)::bigint AS resolved,
       coalesce(sum(sign * date_part('epoch', resolved_at - created_at)), 0)::float8 AS resolve_seconds,
       coalesce(sum(sign) FILTER (WHERE first_response_at IS NOT NULL), 0)::bigint AS responded,
       coalesce(sum(sign * date_part('epoch', first_response_at - created_at)), 0)::float8 AS response_seconds,
       sum(sign * date_part('epoch', created_at))::float8 AS created_epoch_sum
FROM issue_rollup_deltas GROUP BY 1, 2, 3, 4, 5;

CREATE VIEW issue_counter_deltas AS
SELECT property_id, status, priority, category, sum(issues)::bigint AS issues, sum(resolved)::bigint AS resolved,
       sum(resolve_seconds) AS resolve_seconds, sum(responded)::bigint AS responded,
       sum(response_seconds) AS response_seconds, sum(created_epoch_sum) AS created_epoch_sum
FROM issue_day_counter_deltas GROUP BY 1, 2, 3, 4;

CREATE VIEW open_issue_due_day_deltas AS
SELECT property_id, (resolve_by AT TIME ZONE 'UTC')::date AS due_day, sum(sign)::bigint AS issues
FROM issue_rollup_deltas WHERE status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD') GROUP BY 1, 2;

CREATE VIEW issue_day_duration_bucket_deltas AS
SELECT property_id, created_day, kind, bucket, sum(sign)::bigint AS issues FROM (
  SELECT property_id, (created_at AT TIME ZONE 'UTC')::date AS created_day, 'resolve' AS kind,
         issue_duration_bucket(date_part('epoch', resolved_at - created_at)) AS bucket, sign
  FROM issue_rollup_deltas WHERE resolved_at IS NOT NULL
  UNION ALL
  SELECT property_id, (created_at AT TIME ZONE 'UTC')::date, 'response',
         issue_duration_bucket(date_part('epoch', first_response_at - created_at)), sign
  FROM issue_rollup_deltas WHERE first_response_at IS NOT NULL) d
GROUP BY 1, 2, 3, 4;

CREATE VIEW issue_duration_bucket_deltas AS
SELECT property_id, kind, bucket, sum(issues)::bigint AS issues FROM issue_day_duration_bucket_deltas GROUP BY 1, 2, 3;

CREATE VIEW schedule_due_day_deltas AS
SELECT property_id, next_due_on AS due_day, sum(sign)::bigint AS schedules FROM schedule_rollup_deltas GROUP BY 1, 2;

-- ---- The rollups as of the reader's snapshot: folded rows plus the deltas still waiting.
CREATE VIEW issue_counters_current AS
SELECT property_id, status, priority, category, sum(issues)::bigint AS issues, sum(resolved)::bigint AS resolved,
       sum(resolve_seconds) AS resolve_seconds, sum(responded)::bigint AS responded,
       sum(response_seconds) AS response_seconds, sum(created_epoch_sum) AS created_epoch_sum
FROM (SELECT property_id, status, priority, category, issues, resolved, resolve_seconds, responded, response_seconds,
             created_epoch_sum FROM issue_counters
      UNION ALL SELECT * FROM issue_counter_deltas) c
GROUP BY 1, 2, 3, 4;

CREATE VIEW issue_day_counters_current AS
SELECT property_id, created_day, status, priority, category, sum(issues)::bigint AS issues,
       sum(resolved)::bigint AS resolved, sum(resolve_seconds) AS resolve_seconds, sum(responded)::bigint AS responded,
       sum(response_seconds) AS response_seconds, sum(created_epoch_sum) AS created_epoch_sum
FROM (SELECT property_id, created_day, status, priority, category, issues, resolved, resolve_seconds, responded,
             response_seconds, created_epoch_sum FROM issue_day_counters
      UNION ALL SELECT * FROM issue_day_counter_deltas) c
GROUP BY 1, 2, 3, 4, 5;

CREATE VIEW open_issue_due_days_current AS
SELECT property_id, due_day, sum(issues)::bigint AS issues
FROM (SELECT property_id, due_day, issues FROM open_issue_due_days
      UNION ALL SELECT * FROM open_issue_due_day_deltas) d
GROUP BY 1, 2;

CREATE VIEW issue_duration_buckets_current AS
SELECT property_id, kind, bucket, sum(issues)::bigint AS issues
FROM (SELECT property_id, kind, bucket, issues FROM issue_duration_buckets
      UNION ALL SELECT * FROM issue_duration_bucket_deltas) b
GROUP BY 1, 2, 3;

CREATE VIEW issue_day_duration_buckets_current AS
SELECT property_id, created_day, kind, bucket, sum(issues)::bigint AS issues
FROM (SELECT property_id, created_day, kind, bucket, issues FROM issue_day_duration_buckets
      UNION ALL SELECT * FROM issue_day_duration_bucket_deltas) b
GROUP BY 1, 2, 3, 4;

CREATE VIEW schedule_due_days_current AS
SELECT property_id, due_day, sum(schedules)::bigint AS schedules
FROM (SELECT property_id, due_day, schedules FROM schedule_due_days
      UNION ALL SELECT * FROM schedule_due_day_deltas) d
GROUP BY 1, 2;

-- ---- The fold: moves every visible delta into the rollups in one statement per delta table.
-- All parts of a statement share one snapshot, so the rows deleted are exactly the rows summed.
-- Only one fold runs at a time (other callers return at once); it locks rollup rows only, which
-- no request transaction touches, so it never waits for a writer nor makes one wait.
CREATE FUNCTION fold_rollup_deltas() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  issue_rows bigint;
  schedule_rows bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('hotel.fold_rollup_deltas')) THEN
    RETURN 0;
  END IF;
  WITH moved AS (DELETE FROM issue_rollup_deltas RETURNING 1),
  counters AS (
    INSERT INTO issue_counters AS c (property_id, status, priority, category, issues, resolved, resolve_seconds,
                                     responded, response_seconds, created_epoch_sum)
    SELECT * FROM issue_counter_deltas ORDER BY 1, 2, 3, 4
    ON CONFLICT (property_id, status, priority, category) DO UPDATE SET
      issues = c.issues + excluded.issues, resolved = c.resolved + excluded.resolved,
      resolve_seconds = c.resolve_seconds + excluded.resolve_seconds, responded = c.responded + excluded.responded,
      response_seconds = c.response_seconds + excluded.response_seconds,
      created_epoch_sum = c.created_epoch_sum + excluded.created_epoch_sum),
  day_counters AS (
    INSERT INTO issue_day_counters AS c (property_id, created_day, status, priority, category, issues, resolved,
                                         resolve_seconds, responded, response_seconds, created_epoch_sum)
    SELECT * FROM issue_day_counter_deltas ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (created_day, property_id, status, priority, category) DO UPDATE SET
      issues = c.issues + excluded.issues, resolved = c.resolved + excluded.resolved,
      resolve_seconds = c.resolve_seconds + excluded.resolve_seconds, responded = c.responded + excluded.responded,
      response_seconds = c.response_seconds + excluded.response_seconds,
      created_epoch_sum = c.created_epoch_sum + excluded.created_epoch_sum),
  due_days AS (
    INSERT INTO open_issue_due_days AS d (property_id, due_day, issues)
    SELECT * FROM open_issue_due_day_deltas WHERE issues <> 0 ORDER BY 1, 2
    ON CONFLICT (property_id, due_day) DO UPDATE SET issues = d.issues + excluded.issues),
  buckets AS (
    INSERT INTO issue_duration_buckets AS b (property_id, kind, bucket, issues)
    SELECT * FROM issue_duration_bucket_deltas WHERE issues <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (property_id, kind, bucket) DO UPDATE SET issues = b.issues + excluded.issues),
  day_buckets AS (
    INSERT INTO issue_day_duration_buckets AS b (property_id, created_day, kind, bucket, issues)
    SELECT * FROM issue_day_duration_bucket_deltas WHERE issues <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (created_day, property_id, kind, bucket) DO UPDATE SET issues = b.issues + excluded.issues)
  SELECT count(*) INTO issue_rows FROM moved;

  WITH moved AS (DELETE FROM schedule_rollup_deltas RETURNING 1),
  due_days AS (
    INSERT INTO schedule_due_days AS d (property_id, due_day, schedules)
    SELECT * FROM schedule_due_day_deltas WHERE schedules <> 0 ORDER BY 1, 2
    ON CONFLICT (property_id, due_day) DO UPDATE SET schedules = d.schedules + excluded.schedules)
  SELECT count(*) INTO schedule_rows FROM moved;
  RETURN issue_rows + schedule_rows;
END $$;

-- ---- Backfill the per-day rollups from the issues that exist (the older rollups are complete:
-- their triggers ran until this migration's transaction, which holds the migration lock).
LOCK TABLE issues IN SHARE MODE;
INSERT INTO issue_day_counters (property_id, created_day, status, priority, category, issues, resolved,
                                resolve_seconds, responded, response_seconds, created_epoch_sum)
SELECT property_id, (created_at AT TIME ZONE 'UTC')::date, status, priority, category, count(*), count(resolved_at),
       coalesce(sum(date_part('epoch', resolved_at - created_at)), 0), count(first_response_at),
       coalesce(sum(date_part('epoch', first_response_at - created_at)), 0), sum(date_part('epoch', created_at))
FROM issues GROUP BY 1, 2, 3, 4, 5;
INSERT INTO issue_day_duration_buckets (property_id, created_day, kind, bucket, issues)
SELECT property_id, created_day, kind, bucket, count(*) FROM (
  SELECT property_id, (created_at AT TIME ZONE 'UTC')::date AS created_day, 'resolve' AS kind,
         issue_duration_bucket(date_part('epoch', resolved_at - created_at)) AS bucket
  FROM issues WHERE resolved_at IS NOT NULL
  UNION ALL
  SELECT property_id, (created_at AT TIME ZONE 'UTC')::date, 'response',
         issue_duration_bucket(date_part('epoch', first_response_at - created_at))
  FROM issues WHERE first_response_at IS NOT NULL) d
GROUP BY 1, 2, 3, 4;
-- Statistics now, so the first windowed reads range-scan the new tables instead of reading them whole.
ANALYZE issue_day_counters;
ANALYZE issue_day_duration_buckets;

-- Open issues by creation time, for the oldest open issue of a window (and of all time, per
-- property): replaces the index led by property_id, which a window over all properties could not
-- use. And open issues by due time with their creation time, so the open issues of a window that
-- are not yet due (overdue = open - not yet due) are counted from the index alone.
DROP INDEX issues_open_created;
CREATE INDEX issues_open_window ON issues (created_at) INCLUDE (property_id)
  WHERE status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD');
DROP INDEX issues_open_due;
CREATE INDEX issues_open_due ON issues (resolve_by) INCLUDE (created_at, property_id)
  WHERE status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD');
