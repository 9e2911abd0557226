-- $1 room type id. The room type a room is given, locked FOR SHARE until the room's transaction
-- ends: a concurrent retirement of the type (FOR NO KEY UPDATE) waits for it, or it for the
-- retirement, so no active room ever ends up with a retired type.
SELECT property_id, retired_at IS NOT NULL AS retired FROM room_types WHERE id = $1 FOR SHARE
