-- The two properties of the first release, with room types and rooms on several floors.
INSERT INTO properties (id, name, enabled, time_zone, city, country_code) VALUES
  ('BER1', 'Hotel Spreebogen Berlin', true, 'Europe/Berlin', 'Berlin', 'DE'),
  ('LIS1', 'Hotel Alfama Lisboa', true, 'Europe/Lisbon', 'Lisbon', 'PT');

INSERT INTO room_types (id, property_id, code, name, description, category, amenities, size_sqm, max_guests, bed_type) VALUES
  ('BER1-STD', 'BER1', 'STD', 'Standard Double', 'Quiet courtyard room with a double bed.', 'STANDARD',
   '{air_conditioning,desk,safe,wifi}', 18.0, 2, 'DOUBLE'),
  ('BER1-SUP', 'BER1', 'SUP', 'Superior King', 'Street-side room with a king bed and city view.', 'SUPERIOR',
   '{air_conditioning,city_view,coffee_machine,desk,minibar,safe,wifi}', 24.0, 2, 'KING'),
  ('BER1-DLX', 'BER1', 'DLX', 'Deluxe Balcony', 'Corner room with a balcony over the river and a bathtub.', 'DELUXE',
   '{air_conditioning,balcony,bathtub,city_view,coffee_machine,minibar,safe,wifi}', 32.0, 3, 'KING'),
  ('BER1-STE', 'BER1', 'STE', 'Spree Suite', 'Two-room suite with living room, bathtub and terrace.', 'SUITE',
   '{air_conditioning,bathtub,city_view,coffee_machine,minibar,safe,smart_tv,sofa_bed,terrace,wifi}', 56.0, 4, 'KING'),
  ('BER1-FAM', 'BER1', 'FAM', 'Family Room', 'A double bed and two singles.', 'FAMILY',
   '{air_conditioning,desk,safe,sofa_bed,wifi}', 36.0, 4, 'DOUBLE_AND_TWIN'),
  ('BER1-ACC', 'BER1', 'ACC', 'Accessible Double', 'Step-free room with a roll-in shower.', 'ACCESSIBLE',
   '{accessible_bathroom,air_conditioning,safe,walk_in_shower,wifi}', 28.0, 2, 'DOUBLE'),
  ('LIS1-STD', 'LIS1', 'STD', 'Standard Twin', 'Compact room with two single beds.', 'STANDARD',
   '{air_conditioning,safe,wifi}', 16.0, 2, 'TWIN'),
  ('LIS1-SUP', 'LIS1', 'SUP', 'Superior Sea View', 'Double room facing the Tagus.', 'SUPERIOR',
   '{air_conditioning,minibar,safe,sea_view,wifi}', 22.0, 2, 'QUEEN'),
  ('LIS1-DLX', 'LIS1', 'DLX', 'Deluxe Balcony Sea View', 'Balcony over the river, bathtub.', 'DELUXE',
   '{air_conditioning,balcony,bathtub,minibar,safe,sea_view,wifi}', 30.0, 3, 'KING'),
  ('LIS1-STE', 'LIS1', 'STE', 'Alfama Suite', 'Top-floor suite with kitchenette and terrace.', 'SUITE',
   '{air_conditioning,bathtub,coffee_machine,kitchenette,minibar,safe,sea_view,smart_tv,terrace,wifi}', 62.0, 4, 'KING'),
  ('LIS1-FAM', 'LIS1', 'FAM', 'Family Loft', 'Split-level room with a sofa bed.', 'FAMILY',
   '{air_conditioning,kitchenette,safe,sofa_bed,wifi}', 40.0, 5, 'QUEEN_AND_SOFA');

-- BER1: floors 1-5, ten rooms a floor. Rooms 1-4 standard, 5-6 superior, 7 deluxe, 8 family,
-- 9 accessible (floors 1-2) or superior, 10 suite (floors 4-5) or deluxe.
INSERT INTO rooms (property_id, number, floor, room_type_id, extra_amenities)
SELECT 'BER1', (f * 100 + n)::text, f,
       CASE WHEN n <= 4 THEN 'BER1-STD' WHEN n <= 6 THEN 'BER1-SUP' WHEN n = 7 THEN 'BER1-DLX'
            WHEN n = 8 THEN 'BER1-FAM' WHEN n = 9 AND f <= 2 THEN 'BER1-ACC' WHEN n = 9 THEN 'BER1-SUP'
            WHEN f >= 4 THEN 'BER1-STE' ELSE 'BER1-DLX' END,
       CASE WHEN n = 4 AND f >= 3 THEN '{balcony}'::text[] ELSE '{}'::text[] END
FROM generate_series(1, 5) AS f, generate_series(1, 10) AS n;

-- LIS1: ground floor to floor 3, six rooms a floor; numbers like "0.01" are avoided: "G01".
INSERT INTO rooms (property_id, number, floor, room_type_id, extra_amenities)
SELECT 'LIS1', CASE WHEN f = 0 THEN 'G' || lpad(n::text, 2, '0') ELSE (f * 100 + n)::text END, f,
       CASE WHEN n <= 2 THEN 'LIS1-STD' WHEN n <= 4 THEN 'LIS1-SUP' WHEN n = 5 THEN 'LIS1-FAM'
            WHEN f = 3 THEN 'LIS1-STE' ELSE 'LIS1-DLX' END,
       CASE WHEN n = 1 AND f = 0 THEN '{walk_in_shower}'::text[] ELSE '{}'::text[] END
FROM generate_series(0, 3) AS f, generate_series(1, 6) AS n;
