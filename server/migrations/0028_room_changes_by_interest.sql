-- Feeds by interest (1.5.0, docs/changes.md): a reader of the change feed, or a webhook
-- subscription, may take a room's data changes without its housekeeping ones, or the housekeeping
-- ones alone (Change.RoomChanges). Expand only: a new function and a column with a default that
-- keeps every subscription as it was (every ROOM change); a 1.4 server never reads them.
SET LOCAL lock_timeout = '5s';

-- Whether a change is one a reader of room_changes ('' : every one; ROOM_DATA; HOUSEKEEPING)
-- takes: other resource types always; a ROOM change of the room's housekeeping when one of its
-- changed fields is a housekeeping_* column, of its data when another is, or when it is no update
-- (a creation, a deletion). The server's fan-out says the same (changes/change_request.cc,
-- RoomChangePartsOf). One SQL expression, inlined into the statements that filter by it.
CREATE FUNCTION room_change_wanted(room_changes text, resource_type text, kind text, changed_fields text[])
  RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT room_changes = '' OR resource_type <> 'ROOM'
         OR CASE WHEN room_changes = 'HOUSEKEEPING'
                 THEN kind = 'UPDATED' AND EXISTS (SELECT FROM unnest(changed_fields) f WHERE f LIKE 'housekeeping\_%')
                 ELSE kind <> 'UPDATED' OR cardinality(changed_fields) = 0
                      OR EXISTS (SELECT FROM unnest(changed_fields) f WHERE f NOT LIKE 'housekeeping\_%') END $$;

ALTER TABLE webhooks ADD COLUMN room_changes text NOT NULL DEFAULT ''
  CHECK (room_changes IN ('', 'ROOM_DATA', 'HOUSEKEEPING'));
