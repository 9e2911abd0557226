-- Images of room types and rooms (see docs/images.md). The files live on the CDN origin under
-- content-addressed keys; `hotel-images ingest` writes every file before it inserts the record,
-- in one transaction, so no record ever points at a missing file.
CREATE TABLE images (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  room_type_id   text REFERENCES room_types (id),
  property_id    text,
  room_number    text COLLATE "C",
  -- SHA-256 of the uploaded original: the same file ingested twice for one owner is one image.
  content_sha256 text NOT NULL CHECK (content_sha256 ~ '^[0-9a-f]{64}$'),
  alt_text       text NOT NULL CHECK (length(alt_text) BETWEEN 1 AND 500),
  sort_order     integer NOT NULL,
  width          integer NOT NULL CHECK (width > 0),
  height         integer NOT NULL CHECK (height > 0),
  created_at     timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (property_id, room_number) REFERENCES rooms (property_id, number),
  CHECK ((room_type_id IS NOT NULL AND property_id IS NULL AND room_number IS NULL) OR
         (room_type_id IS NULL AND property_id IS NOT NULL AND room_number IS NOT NULL))
);
CREATE UNIQUE INDEX images_room_type_content ON images (room_type_id, content_sha256)
  WHERE room_type_id IS NOT NULL;
CREATE UNIQUE INDEX images_room_content ON images (property_id, room_number, content_sha256)
  WHERE room_type_id IS NULL;
CREATE INDEX images_room_type_gallery ON images (room_type_id, sort_order, id) WHERE room_type_id IS NOT NULL;
CREATE INDEX images_room_gallery ON images (property_id, room_number, sort_order, id) WHERE room_type_id IS NULL;

-- One row per delivered file: thumbnail, medium and large as JPEG and WebP, the original as
-- JPEG or PNG. storage_key is relative to the CDN origin; URLs add the configured CDN base URL.
CREATE TABLE image_files (
  image_id    uuid NOT NULL REFERENCES images (id) ON DELETE CASCADE,
  variant     text NOT NULL CHECK (variant IN ('thumbnail', 'medium', 'large', 'original')),
  format      text NOT NULL CHECK (format IN ('jpeg', 'png', 'webp')),
  storage_key text NOT NULL,
  width       integer NOT NULL CHECK (width > 0),
  height      integer NOT NULL CHECK (height > 0),
  bytes       bigint NOT NULL CHECK (bytes > 0),
  PRIMARY KEY (image_id, variant, format)
);
