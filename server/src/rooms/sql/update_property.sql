-- $1 id, then the new values as in insert_property.sql. The version trigger bumps the etag.
UPDATE properties SET name = $2, time_zone = $3, city = $4, country_code = $5, enabled = $6::bool,
  updated_by = $7, updated_at = now()
WHERE id = $1
