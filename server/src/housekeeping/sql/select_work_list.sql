-- The rooms housekeeping may have to visit (1.5.0): active, in order, DIRTY or CLEAN; the
-- repository types them (housekeeping::WorkItemType) and sets the do-not-disturb and declined
-- stay-overs apart. By cleaning priority (1 first, 0 none last), floor and number. $1 property id.
SELECT r.number, r.floor, r.room_type_id, r.housekeeping_condition AS condition,
       r.housekeeping_occupancy AS occupancy, r.housekeeping_service_request AS service_request,
       r.housekeeping_cleaning_priority AS cleaning_priority
FROM rooms r
WHERE r.property_id = $1 AND r.retired_at IS NULL AND NOT r.out_of_order
  AND r.housekeeping_condition IN ('DIRTY', 'CLEAN')
ORDER BY r.housekeeping_cleaning_priority = 0, r.housekeeping_cleaning_priority, r.floor, r.number
