-- The sequencer in bounded batches (issue 32): sequence_changes(batch) moves at most batch staged
-- changes, oldest first, so one call is a short statement that fits the session's
-- statement_timeout and runs on its own, with no transaction around it (the change feed's hub
-- calls it on every poll: BEGIN, SET LOCAL statement_timeout = 0 and COMMIT were three of the
-- five round trips of an idle poll). A backlog is moved by the next calls, each poll after the
-- last. Otherwise as 0013's sequence_changes(): the changes a transaction in flight staged are
-- invisible here and neither read nor skipped; -1 when another server holds the sequencer's lock.
-- sequence_changes() stays for servers of the previous release during a rolling deploy.
SET LOCAL lock_timeout = '5s';

CREATE FUNCTION sequence_changes(batch integer) RETURNS bigint LANGUAGE plpgsql AS $$
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
