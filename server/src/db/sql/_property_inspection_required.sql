-- Whether room r's property requires a room INSPECTED, not only CLEAN, to be ready (its
-- housekeeping policy; true, the default, while it was never changed).
coalesce((SELECT h.inspection_required FROM housekeeping_policies h WHERE h.property_id = r.property_id), true)
