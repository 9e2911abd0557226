-- The change log's head and pruned_through, and up to $5 changes with $1 < seq <= least(head, $2),
-- filtered by resource types $3 (text[], empty: all), property $4 ('' : all) and of ROOM changes
-- those of part $8 ('' : all; ROOM_DATA, HOUSEKEEPING: migration 0028), oldest first;
-- the stored record only when $6, the previous values (migration 0021) only when $7 (what the view
-- needs: changes/change_sql.h). One statement, so the head and the rows are one snapshot.
-- after_known: whether this log could have handed out $1 as a cursor. The log is contiguous from
-- pruned_through to head, so every cursor it gave is one of those bounds or a stored seq; after a
-- restore to an earlier point (scripts/change-log-after-restore.sql) the head jumps, and the head
-- it jumped to is handed out too, with no change of its own: the first new change follows it. The
-- cursors of the changes the restore threw away lie in the gap and are unknown.
-- wal_position: a WAL position at or past the commit of every change up to head, read after the
-- snapshot (a primary's flush position, a standby's replay position): the change hub's polls are the
-- samples of db/read_replicas.h, with no round trip of their own.
SELECT s.head, s.pruned_through,
       coalesce($1::bigint <= s.pruned_through OR $1::bigint = s.head
                OR (SELECT min(seq) FROM change_log WHERE seq >= $1::bigint) - $1::bigint <= 1, false) AS after_known,
       s.wal_position,
       c.seq, c.committed_micros, c.resource_type, c.resource_id, c.property_id, c.kind, c.changed_fields, c.version,
       c.actor, c.resource, c.trace_id, c.previous
  FROM (SELECT max(value) FILTER (WHERE name = 'head') AS head,
               max(value) FILTER (WHERE name = 'pruned_through') AS pruned_through,
               coalesce(CASE WHEN pg_is_in_recovery() THEN {{wal_replay_position}} ELSE {{wal_flush_position}} END,
                        0) AS wal_position
          FROM change_log_state) s
  LEFT JOIN LATERAL (
    SELECT seq, (extract(epoch FROM committed_at) * 1000000)::bigint AS committed_micros, resource_type, resource_id,
           property_id, kind, changed_fields, version, actor, CASE WHEN $6::boolean THEN resource::text END AS resource,
           trace_id, CASE WHEN $7::boolean THEN previous::text END AS previous
      FROM change_log
     WHERE seq > $1::bigint AND seq <= least(s.head, $2::bigint)
       AND (cardinality($3::text[]) = 0 OR resource_type = ANY ($3::text[]))
       AND ($4::text = '' OR property_id = $4::text)
       AND room_change_wanted($8::text, resource_type, kind, changed_fields)
     ORDER BY seq
     LIMIT $5::integer) c ON true
 ORDER BY c.seq
