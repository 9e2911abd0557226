-- Room data management (1.1.0): properties, room types and rooms are created and changed through
-- the API and hotel-admin. Nothing is deleted: rooms and room types are retired (retired_at),
-- properties disabled. updated_at/updated_by say who changed a row last (the actor of the write);
-- seeded rows keep updated_by ''. The row versions of migration 0010 are the etags.
ALTER TABLE properties
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN updated_by text NOT NULL DEFAULT '';
ALTER TABLE room_types
  ADD COLUMN retired_at timestamptz,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN updated_by text NOT NULL DEFAULT '';
ALTER TABLE rooms
  ADD COLUMN retired_at timestamptz,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN updated_by text NOT NULL DEFAULT '';

-- Idempotent creates of the three resources: the request_id, a fingerprint of the request that
-- used it, and the id of what it created (a property id, a room type id, or "<property>/<number>"
-- for a room). One table for the three: a request_id names one create, whatever its kind.
CREATE TABLE room_data_requests (
  request_id   text PRIMARY KEY,
  request_hash text NOT NULL,
  id           text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
