-- A property's housekeeping policy: no row when the property does not exist, NULL columns when
-- its policy was never changed (the server answers the defaults). $1 property id.
SELECT h.property_id, h.checkout_condition, h.occupied_nightly_condition, h.vacant_nightly_downgrade,
       h.vacant_dirty_after_days, h.inspection_required, h.version, h.updated_by,
       (extract(epoch FROM h.updated_at) * 1000000)::int8 AS updated_micros
FROM properties p LEFT JOIN housekeeping_policies h ON h.property_id = p.id
WHERE p.id = $1
