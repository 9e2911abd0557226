-- The statement's now as epoch microseconds: the computed_at of a response.
(extract(epoch FROM now()) * 1000000)::int8
