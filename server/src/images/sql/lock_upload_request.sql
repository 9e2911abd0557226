-- Serialises the uploads that carry request id $1 until the transaction ends: concurrent
-- retries of one upload register one image.
SELECT pg_advisory_xact_lock(hashtextextended($1, 31))
