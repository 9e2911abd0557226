-- $1 IANA time zone name. Whether PostgreSQL knows it: local dates are computed in the database
-- (AT TIME ZONE), so a zone the server's library knows but PostgreSQL does not must be refused.
SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1) AS known
