-- Whether room r is ready for a guest (1.5.0), as rooms::NotReadyReasons finds none: in
-- order, VACANT without a SLEEP discrepancy, INSPECTED (or CLEAN when its property does not
-- require inspection), under no OUT_OF_SERVICE block today. The cheap column tests come first;
-- the probes run for the rooms they let through.
(NOT r.out_of_order AND r.housekeeping_occupancy = 'VACANT'
 AND r.housekeeping_observed_occupancy IS DISTINCT FROM 'OCCUPIED'
 AND (r.housekeeping_condition = 'INSPECTED'
      OR r.housekeeping_condition = 'CLEAN' AND NOT {{property_inspection_required}})
 AND NOT {{room_out_of_service_today}})
