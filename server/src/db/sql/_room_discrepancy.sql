-- Room r's discrepancy (1.5.0; rooms::DiscrepancyOf): 'SKIP' (the PMS says OCCUPIED,
-- housekeeping found it VACANT), 'SLEEP' (the other way round), '' none.
CASE WHEN r.housekeeping_occupancy = 'OCCUPIED' AND r.housekeeping_observed_occupancy = 'VACANT' THEN 'SKIP'
     WHEN r.housekeeping_occupancy = 'VACANT' AND r.housekeeping_observed_occupancy = 'OCCUPIED' THEN 'SLEEP'
     ELSE '' END
