-- $1 property id
SELECT 1 FROM properties WHERE id = $1
