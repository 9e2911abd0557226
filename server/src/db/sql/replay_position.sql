-- How far this replica has replayed the WAL; NULL on a primary (current by definition).
SELECT {{wal_replay_position}}
