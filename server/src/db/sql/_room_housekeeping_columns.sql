-- A room's housekeeping columns (alias r; 1.4.0, migration 0020), by the names
-- rooms::ReadRoomHousekeeping reads (with r.property_id and r.number); 1.5.0: the version of its
-- etag (migration 0028).
r.housekeeping_condition, r.housekeeping_occupancy, r.housekeeping_occupancy_source,
(extract(epoch FROM r.housekeeping_occupancy_observed_at) * 1000000)::int8 AS housekeeping_observed_micros,
r.housekeeping_reason, r.housekeeping_updated_by,
(extract(epoch FROM r.housekeeping_updated_at) * 1000000)::int8 AS housekeeping_updated_micros,
r.housekeeping_version
