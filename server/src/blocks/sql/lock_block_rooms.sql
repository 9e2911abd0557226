-- $1 property ids, $2 room numbers (text[] each, a pair per block the write creates or changes).
-- Locks those rooms in one order, first in the lock order (docs/performance.md#lock-order): block
-- writes of one room run one after the other. Without it, racing inserts that the overlap rule (an
-- exclusion constraint) checks waited for each other's uncommitted rows in a cycle, a deadlock
-- PostgreSQL breaks one a second: 16 racing creators ran into the statement timeout.
SELECT number FROM rooms
WHERE (property_id, number) IN (SELECT * FROM unnest($1::text[], $2::text[]))
ORDER BY property_id, number
FOR NO KEY UPDATE
