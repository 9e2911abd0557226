-- Uploads over the API (issue 31, 1.3.0, docs/images.md): a client's request_id is remembered with
-- the image it created, so a retried upload answers that image instead of adding it again. A new
-- table, so the images table takes no new index (the runner cannot build one CONCURRENTLY); the
-- row goes with its image. Request ids are unique across owners: one id names one upload.
SET LOCAL lock_timeout = '5s';

CREATE TABLE image_upload_requests (
  request_id text PRIMARY KEY CHECK (length(request_id) BETWEEN 1 AND 128),
  image_id   uuid NOT NULL REFERENCES images (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX image_upload_requests_image ON image_upload_requests (image_id);
