-- $1 id, $2 name, $3 time zone, $4 city, $5 country code, $6 enabled, $7 actor. No row: the id is
-- taken.
INSERT INTO properties (id, name, time_zone, city, country_code, enabled, updated_by)
VALUES ($1, $2, $3, $4, $5, $6::bool, $7)
ON CONFLICT (id) DO NOTHING RETURNING id
