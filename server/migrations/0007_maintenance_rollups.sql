-- All-time issue statistics and the dashboard summary without scanning a million issues or every
-- schedule (see docs/maintenance.md, "How stats stay fast"). Statement-level triggers fold every
-- insert, update and delete of issues and schedules into small tables in the same transaction, so
-- the figures are exact and never lag a write.

-- Counts and sums per (property, status, priority, category): a few hundred rows at most.
CREATE TABLE issue_counters (
  property_id         text NOT NULL,
  status              text NOT NULL,
  priority            text NOT NULL,
  category            text NOT NULL,
  issues              bigint NOT NULL DEFAULT 0,
  resolved            bigint NOT NULL DEFAULT 0,
  resolve_seconds     float8 NOT NULL DEFAULT 0,
  responded           bigint NOT NULL DEFAULT 0,
  response_seconds    float8 NOT NULL DEFAULT 0,
  created_epoch_sum   float8 NOT NULL DEFAULT 0,  -- mean age = now - sum / issues
  PRIMARY KEY (property_id, status, priority, category)
);

-- Open issues per UTC day of resolve_by: overdue = the days before today plus an exact count of
-- today's part from the issues_open_due index.
CREATE TABLE open_issue_due_days (
  property_id text NOT NULL,
  due_day     date NOT NULL,
  issues      bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (property_id, due_day)
);

-- Log-scaled histograms of time to resolve and to first response, 50 buckets per factor e
-- (bucket = floor(ln(1 + seconds) * 50)): a median read from it is within 1 % of the exact one.
CREATE TABLE issue_duration_buckets (
  property_id text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('resolve', 'response')),
  bucket      integer NOT NULL,
  issues      bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (property_id, kind, bucket)
);

CREATE INDEX issues_open_due ON issues (resolve_by) WHERE status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD');
CREATE INDEX issues_open_created ON issues (property_id, created_at) WHERE status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD');

CREATE FUNCTION issue_duration_bucket(seconds float8) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT floor(ln(1 + greatest(seconds, 0)) * 50)::integer $$;

-- The rows a statement changed, from its transition tables: new rows with sign +1, old rows -1.
CREATE FUNCTION rollup_changes_sql(operation text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE operation
    WHEN 'INSERT' THEN 'SELECT 1 AS sign, * FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT -1 AS sign, * FROM old_rows'
    ELSE 'SELECT 1 AS sign, * FROM new_rows UNION ALL SELECT -1 AS sign, * FROM old_rows' END
$$;

-- Folds the rows of a statement into the rollups: `changes` is new rows with sign +1 and old rows
-- with sign -1, so an update moves an issue from its old keys to its new ones. Keys whose deltas
-- cancel (an edit of the title) are not touched, which keeps unrelated writes off the hot rows.
-- Rows are upserted in key order so concurrent statements cannot deadlock on them.
CREATE FUNCTION issue_rollups_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changes text := rollup_changes_sql(TG_OP);
BEGIN
  EXECUTE format($q$
    WITH changes AS (%s)
    INSERT INTO issue_counters AS c (property_id, status, priority, category, issues, resolved, resolve_seconds,
                                     responded, response_seconds, created_epoch_sum)
    SELECT * FROM (
      SELECT property_id, status, priority, category, sum(sign) AS issues,
             coalesce(sum(sign) FILTER (WHERE resolved_at IS NOT NULL), 0) AS resolved,
             coalesce(sum(sign * date_part('epoch', resolved_at - created_at)), 0) AS resolve_seconds,
             coalesce(sum(sign) FILTER (WHERE first_response_at IS NOT NULL), 0) AS responded,
             coalesce(sum(sign * date_part('epoch', first_response_at - created_at)), 0) AS response_seconds,
             sum(sign * date_part('epoch', created_at)) AS created_epoch_sum
      FROM changes GROUP BY 1, 2, 3, 4) d
    WHERE issues <> 0 OR resolved <> 0 OR resolve_seconds <> 0 OR responded <> 0 OR response_seconds <> 0
       OR created_epoch_sum <> 0
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (property_id, status, priority, category) DO UPDATE SET
      issues = c.issues + excluded.issues,
      resolved = c.resolved + excluded.resolved,
      resolve_seconds = c.resolve_seconds + excluded.resolve_seconds,
      responded = c.responded + excluded.responded,
      response_seconds = c.response_seconds + excluded.response_seconds,
      created_epoch_sum = c.created_epoch_sum + excluded.created_epoch_sum
  $q$, changes);

  EXECUTE format($q$
    WITH changes AS (%s)
    INSERT INTO open_issue_due_days AS d (property_id, due_day, issues)
    SELECT property_id, (resolve_by AT TIME ZONE 'UTC')::date, sum(sign) FROM changes
    WHERE status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD')
    GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
    ON CONFLICT (property_id, due_day) DO UPDATE SET issues = d.issues + excluded.issues
  $q$, changes);

  EXECUTE format($q$
    WITH changes AS (%s)
    INSERT INTO issue_duration_buckets AS b (property_id, kind, bucket, issues)
    SELECT property_id, kind, bucket, sum(sign) FROM (
      SELECT property_id, 'resolve' AS kind,
             issue_duration_bucket(date_part('epoch', resolved_at - created_at)) AS bucket, sign
      FROM changes WHERE resolved_at IS NOT NULL
      UNION ALL
      SELECT property_id, 'response', issue_duration_bucket(date_part('epoch', first_response_at - created_at)), sign
      FROM changes WHERE first_response_at IS NOT NULL) d
    GROUP BY 1, 2, 3 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (property_id, kind, bucket) DO UPDATE SET issues = b.issues + excluded.issues
  $q$, changes);
  RETURN NULL;
END $$;

CREATE TRIGGER issues_rollups_insert AFTER INSERT ON issues
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION issue_rollups_apply();
CREATE TRIGGER issues_rollups_update AFTER UPDATE ON issues
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION issue_rollups_apply();
CREATE TRIGGER issues_rollups_delete AFTER DELETE ON issues
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION issue_rollups_apply();

-- Backfill from the issues that exist (the seed, or a live database being upgraded). Runs in the
-- migration's transaction, which holds the migration lock; writers wait for it.
LOCK TABLE issues IN SHARE MODE;
INSERT INTO issue_counters (property_id, status, priority, category, issues, resolved, resolve_seconds, responded,
                            response_seconds, created_epoch_sum)
SELECT property_id, status, priority, category, count(*), count(resolved_at),
       coalesce(sum(date_part('epoch', resolved_at - created_at)), 0), count(first_response_at),
       coalesce(sum(date_part('epoch', first_response_at - created_at)), 0), sum(date_part('epoch', created_at))
FROM issues GROUP BY 1, 2, 3, 4;
INSERT INTO open_issue_due_days (property_id, due_day, issues)
SELECT property_id, (resolve_by AT TIME ZONE 'UTC')::date, count(*) FROM issues
WHERE status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD') GROUP BY 1, 2;
INSERT INTO issue_duration_buckets (property_id, kind, bucket, issues)
SELECT property_id, kind, bucket, count(*) FROM (
  SELECT property_id, 'resolve' AS kind, issue_duration_bucket(date_part('epoch', resolved_at - created_at)) AS bucket
  FROM issues WHERE resolved_at IS NOT NULL
  UNION ALL
  SELECT property_id, 'response', issue_duration_bucket(date_part('epoch', first_response_at - created_at))
  FROM issues WHERE first_response_at IS NOT NULL) d
GROUP BY 1, 2, 3;

-- Active schedules per property and due date: the summary's active, overdue (due before today in
-- the property's time zone) and due-this-week counts add up a few hundred rows.
CREATE TABLE schedule_due_days (
  property_id text NOT NULL,
  due_day     date NOT NULL,
  schedules   bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (property_id, due_day)
);

CREATE FUNCTION schedule_rollups_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changes text := rollup_changes_sql(TG_OP);
BEGIN
  EXECUTE format($q$
    WITH changes AS (%s)
    INSERT INTO schedule_due_days AS d (property_id, due_day, schedules)
    SELECT property_id, next_due_on, sum(sign) FROM changes WHERE active
    GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
    ON CONFLICT (property_id, due_day) DO UPDATE SET schedules = d.schedules + excluded.schedules
  $q$, changes);
  RETURN NULL;
END $$;

CREATE TRIGGER schedules_rollups_insert AFTER INSERT ON maintenance_schedules
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION schedule_rollups_apply();
CREATE TRIGGER schedules_rollups_update AFTER UPDATE ON maintenance_schedules
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION schedule_rollups_apply();
CREATE TRIGGER schedules_rollups_delete AFTER DELETE ON maintenance_schedules
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION schedule_rollups_apply();

LOCK TABLE maintenance_schedules IN SHARE MODE;
INSERT INTO schedule_due_days (property_id, due_day, schedules)
SELECT property_id, next_due_on, count(*) FROM maintenance_schedules WHERE active GROUP BY 1, 2;
