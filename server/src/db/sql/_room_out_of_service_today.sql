-- Whether an active OUT_OF_SERVICE block covers the property's today for room r (1.5.0): one probe
-- of the blocks' room index.
EXISTS (SELECT 1 FROM room_blocks b JOIN properties p ON p.id = b.property_id
        WHERE b.property_id = r.property_id AND b.room_number = r.number AND b.type = 'OUT_OF_SERVICE'
          AND b.status = 'ACTIVE' AND b.start_date <= (now() AT TIME ZONE p.time_zone)::date
          AND (b.end_date IS NULL OR b.end_date > (now() AT TIME ZONE p.time_zone)::date))
