-- $1 property id: its time zone; no row when it does not exist.
SELECT time_zone FROM properties WHERE id = $1
