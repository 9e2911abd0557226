-- Run once after restoring the database to an earlier point, before the service starts
-- (scripts/restore.sh does; production: docs/operations.md, "Backups and recovery"), as the
-- schema owner or a superuser. The consumers of the change feed may hold cursors of changes the restore threw
-- away; numbering new changes from where the restored log ends would give those numbers to
-- other changes, and a consumer resuming from one would silently skip them. So the log goes on
-- 10^12 further (years of writes at the measured write ceiling): the server answers a cursor it
-- never handed out with 410 CURSOR_EXPIRED (list again), while cursors of the restored data go on.
UPDATE change_log_state SET value = value + 1000000000000 WHERE name = 'head';
