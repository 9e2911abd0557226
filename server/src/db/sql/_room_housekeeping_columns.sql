-- A room's housekeeping columns (alias r; 1.4.0, migration 0020; 1.5.0, migration 0025: what
-- housekeeping found, the service request, the cleaning priority and the facts its readiness is
-- read from; migration 0027: the version of its etag), by the names rooms::ReadRoomHousekeeping
-- reads (with r.property_id and r.number).
r.housekeeping_condition, r.housekeeping_occupancy, r.housekeeping_occupancy_source,
(extract(epoch FROM r.housekeeping_occupancy_observed_at) * 1000000)::int8 AS housekeeping_observed_micros,
r.housekeeping_reason, r.housekeeping_updated_by,
(extract(epoch FROM r.housekeeping_updated_at) * 1000000)::int8 AS housekeeping_updated_micros,
coalesce(r.housekeeping_observed_occupancy, '') AS housekeeping_observed_occupancy, r.housekeeping_observed_by,
(extract(epoch FROM r.housekeeping_observed_at) * 1000000)::int8 AS housekeeping_observed_occupancy_micros,
r.housekeeping_service_request, r.housekeeping_cleaning_priority, r.out_of_order AS housekeeping_out_of_order,
{{room_out_of_service_today}} AS housekeeping_out_of_service_today,
{{property_inspection_required}} AS housekeeping_inspection_required,
r.housekeeping_version
