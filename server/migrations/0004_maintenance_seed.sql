-- Demo maintenance data for both seeded properties: equipment in every room, schedules (some
-- overdue), completions, and issues in every status with their timelines. Dates are relative to
-- the time the migration runs, so dashboards show something on a fresh start. Identifiers are
-- derived from fixed names (md5(...)::uuid), so the seed is the same on every database.
-- LIS1 keeps every room in service; two BER1 rooms are taken out of order by open issues.

-- Equipment --------------------------------------------------------------------------------
INSERT INTO equipment (id, property_id, room_number, name, type, manufacturer, model, serial_number,
                       installed_on, warranty_expires_on, status, notes, created_at)
SELECT md5('seed-equipment-ac-' || r.property_id || '-' || r.number)::uuid, r.property_id, r.number,
       'Air conditioner', 'air_conditioner',
       CASE r.property_id WHEN 'BER1' THEN 'Daikin' ELSE 'Mitsubishi Electric' END,
       CASE r.property_id WHEN 'BER1' THEN 'FTXM25R' ELSE 'MSZ-LN25' END,
       r.property_id || '-AC-' || r.number,
       (now() - interval '3 years')::date, (now() + interval '2 years')::date,
       'OPERATIONAL', '', now() - interval '400 days'
FROM rooms r JOIN room_types t ON t.id = r.room_type_id
WHERE 'air_conditioning' = ANY (t.amenities);

INSERT INTO equipment (id, property_id, room_number, name, type, manufacturer, model, serial_number,
                       installed_on, warranty_expires_on, status, notes, created_at)
SELECT md5('seed-equipment-tv-' || r.property_id || '-' || r.number)::uuid, r.property_id, r.number,
       CASE WHEN 'smart_tv' = ANY (t.amenities) THEN 'Smart TV 55"' ELSE 'TV 43"' END, 'tv',
       'Samsung', CASE WHEN 'smart_tv' = ANY (t.amenities) THEN 'HG55EJ690' ELSE 'HG43AU800' END,
       r.property_id || '-TV-' || r.number,
       (now() - interval '2 years')::date, (now() + interval '1 year')::date,
       'OPERATIONAL', '', now() - interval '399 days'
FROM rooms r JOIN room_types t ON t.id = r.room_type_id;

INSERT INTO equipment (id, property_id, room_number, name, type, manufacturer, model, serial_number,
                       installed_on, warranty_expires_on, status, notes, created_at)
SELECT md5('seed-equipment-minibar-' || r.property_id || '-' || r.number)::uuid, r.property_id, r.number,
       'Minibar fridge', 'minibar_fridge', 'Dometic', 'MiniCool DS400', r.property_id || '-MB-' || r.number,
       (now() - interval '5 years')::date, (now() - interval '3 years')::date,
       'OPERATIONAL', '', now() - interval '398 days'
FROM rooms r JOIN room_types t ON t.id = r.room_type_id
WHERE 'minibar' = ANY (t.amenities);

UPDATE equipment SET status = 'DOWN', notes = 'Compressor noisy, not cooling; part ordered.'
WHERE id IN (md5('seed-equipment-minibar-BER1-506')::uuid, md5('seed-equipment-ac-LIS1-203')::uuid);
UPDATE equipment SET status = 'RETIRED', notes = 'Replaced after a screen failure.'
WHERE id = md5('seed-equipment-tv-BER1-101')::uuid;
INSERT INTO equipment (id, property_id, room_number, name, type, manufacturer, model, serial_number,
                       installed_on, warranty_expires_on, status, notes, created_at)
VALUES (md5('seed-equipment-tv2-BER1-101')::uuid, 'BER1', '101', 'TV 43"', 'tv', 'LG', '43UR640S',
        'BER1-TV2-101', (now() - interval '20 days')::date, (now() + interval '2 years')::date,
        'OPERATIONAL', 'Replacement set.', now() - interval '20 days');

-- Schedules --------------------------------------------------------------------------------
-- Air conditioner filters: every 3 months from the last cleaning. Spread over the coming weeks;
-- a few are overdue.
INSERT INTO maintenance_schedules (id, property_id, room_number, equipment_id, task, interval_unit, interval_count,
                                   starts_on, basis, next_due_on, created_at, updated_at)
SELECT md5('seed-schedule-ac-' || e.property_id || '-' || e.room_number)::uuid, e.property_id, e.room_number, e.id,
       'Clean air conditioner filters', 'MONTH', 3, (now() - interval '1 year')::date, 'COMPLETED_DATE',
       (now()::date + ((r.floor * 7 + length(r.number) + ascii(right(r.number, 1))) % 45) - 6),
       now() - interval '1 year', now() - interval '1 year'
FROM equipment e JOIN rooms r ON r.property_id = e.property_id AND r.number = e.room_number
WHERE e.type = 'air_conditioner';

-- Smoke detector test: on the 1st of every month, fixed calendar.
INSERT INTO maintenance_schedules (id, property_id, room_number, task, interval_unit, interval_count,
                                   starts_on, basis, next_due_on, created_at, updated_at)
SELECT md5('seed-schedule-smoke-' || r.property_id || '-' || r.number)::uuid, r.property_id, r.number,
       'Test smoke detector', 'MONTH', 1, (date_trunc('month', now()) - interval '6 months')::date,
       'SCHEDULED_DATE', (date_trunc('month', now()) + interval '1 month')::date,
       now() - interval '7 months', now() - interval '7 months'
FROM rooms r;

-- Suites: deep clean of carpets and upholstery once a year; mattress turn every 13 weeks.
INSERT INTO maintenance_schedules (id, property_id, room_number, task, interval_unit, interval_count,
                                   starts_on, ends_on, basis, next_due_on, created_at, updated_at)
SELECT md5('seed-schedule-deepclean-' || r.property_id || '-' || r.number)::uuid, r.property_id, r.number,
       'Deep clean carpets and upholstery', 'YEAR', 1, (now() - interval '11 months')::date, NULL,
       'SCHEDULED_DATE', (now() - interval '11 months' + interval '1 year')::date,
       now() - interval '12 months', now() - interval '12 months'
FROM rooms r WHERE r.room_type_id LIKE '%-STE';
INSERT INTO maintenance_schedules (id, property_id, room_number, task, interval_unit, interval_count,
                                   starts_on, ends_on, basis, next_due_on, created_at, updated_at)
SELECT md5('seed-schedule-mattress-' || r.property_id || '-' || r.number)::uuid, r.property_id, r.number,
       'Turn mattress', 'WEEK', 13, (now() - interval '30 weeks')::date, (now() + interval '2 years')::date,
       'SCHEDULED_DATE', (now() - interval '30 weeks' + interval '26 weeks')::date,
       now() - interval '31 weeks', now() - interval '31 weeks'
FROM rooms r WHERE r.room_type_id LIKE '%-STE' OR r.room_type_id LIKE '%-FAM';

-- Smoke detector completions of this month's occurrence (the 1st): most on time, every seventh
-- room three days late.
INSERT INTO schedule_completions (id, schedule_id, due_on, completed_at, completed_on, completed_by, notes, late,
                                  days_late, next_due_on, created_at)
SELECT md5('seed-completion-smoke-' || s.property_id || '-' || s.room_number)::uuid, s.id,
       (s.next_due_on - interval '1 month')::date,
       (s.next_due_on - interval '1 month') + CASE WHEN ascii(right(s.room_number, 1)) % 7 = 0
                                                  THEN interval '3 days 10 hours' ELSE interval '10 hours' END,
       (s.next_due_on - interval '1 month' + CASE WHEN ascii(right(s.room_number, 1)) % 7 = 0
                                                   THEN interval '3 days' ELSE interval '0 days' END)::date,
       CASE s.property_id WHEN 'BER1' THEN 'Jonas Weber' ELSE 'Rui Costa' END,
       'Detector tested, battery OK.', ascii(right(s.room_number, 1)) % 7 = 0,
       CASE WHEN ascii(right(s.room_number, 1)) % 7 = 0 THEN 3 ELSE 0 END,
       s.next_due_on, now() - interval '1 day'
FROM maintenance_schedules s
WHERE s.task = 'Test smoke detector' AND (s.next_due_on - interval '1 month') < now();
-- A completion of today's-or-earlier occurrence only if it lies in the past.
UPDATE maintenance_schedules s SET last_completed_at = c.completed_at
FROM schedule_completions c WHERE c.schedule_id = s.id AND c.completed_at <= now();
DELETE FROM schedule_completions WHERE completed_at > now();

-- Issues -----------------------------------------------------------------------------------
CREATE TEMPORARY TABLE seed_issues (
  n           integer,
  property_id text,
  room_number text,
  equipment   text,      -- seed equipment name, e.g. 'ac', or NULL
  title       text,
  description text,
  category    text,
  priority    text,
  status      text,
  reason      text,
  reported_by text,
  assignee    text,
  age         interval,  -- created this long ago
  responded   interval,  -- first status change after creation (NULL: none)
  resolved    interval,  -- resolution after creation (RESOLVED and CLOSED)
  closed      interval,  -- closing after creation (CLOSED)
  takes_room  boolean,
  comment     text
) ON COMMIT DROP;

INSERT INTO seed_issues VALUES
  (1, 'BER1', '208', NULL, 'Water leaking from bathroom ceiling',
   'Brown stain spreading over the shower; water drips when room 308 showers.', 'PLUMBING', 'URGENT',
   'IN_PROGRESS', '', 'Front desk (Anna)', 'Jonas Weber', '6 hours', '40 minutes', NULL, NULL, true,
   'Plumber on site, upstairs bathroom shut off.'),
  (2, 'BER1', '408', 'ac', 'Air conditioner not cooling', 'Blows warm air on every setting.', 'HVAC', 'HIGH',
   'ON_HOLD', 'Waiting for replacement compressor (delivery in 3 days)', 'Housekeeping (Mehmet)', 'Jonas Weber',
   '2 days', '3 hours', NULL, NULL, true, NULL),
  (3, 'BER1', '305', NULL, 'Bathroom door does not close', 'Door sticks at the frame.', 'MECHANICAL', 'MEDIUM',
   'OPEN', '', 'Guest via front desk', '', '5 hours', NULL, NULL, NULL, false, NULL),
  (4, 'BER1', '506', 'minibar', 'Minibar fridge noisy and warm', 'Compressor rattles at night.', 'APPLIANCE_ELECTRONICS',
   'MEDIUM', 'IN_PROGRESS', '', 'Housekeeping (Mehmet)', 'Jonas Weber', '4 days', '1 day', NULL, NULL, false,
   'Part ordered from Dometic.'),
  (5, 'BER1', '110', NULL, 'Scratched desk surface', 'Long scratch across the desk top.', 'FURNITURE_FIXTURES', 'LOW',
   'OPEN', '', 'Housekeeping (Sabine)', '', '9 days', NULL, NULL, NULL, false, NULL),
  (6, 'BER1', '203', NULL, 'Flickering ceiling light', 'Main light flickers when switched on.', 'ELECTRICAL', 'MEDIUM',
   'RESOLVED', '', 'Guest via app', 'Lukas Braun', '3 days', '2 hours', '5 hours', NULL, false, NULL),
  (7, 'BER1', '410', NULL, 'Smoke detector chirping', 'Low battery warning every minute.', 'SAFETY', 'HIGH',
   'CLOSED', '', 'Night audit', 'Lukas Braun', '12 days', '30 minutes', '2 hours', '1 day', false, NULL),
  (8, 'BER1', '101', 'tv', 'TV shows no picture', 'Sound works, screen stays black.', 'APPLIANCE_ELECTRONICS', 'MEDIUM',
   'CLOSED', '', 'Guest via front desk', 'Lukas Braun', '21 days', '3 hours', '1 day', '2 days', true, NULL),
  (9, 'BER1', '307', NULL, 'Stain on carpet', 'Red wine stain by the bed.', 'HOUSEKEEPING', 'LOW',
   'CANCELLED', 'Removed by housekeeping during regular cleaning', 'Housekeeping (Sabine)', '', '6 days', '1 day', NULL,
   NULL, false, NULL),
  (10, 'BER1', '502', NULL, 'Cracked window pane', 'Hairline crack in the outer pane.', 'STRUCTURAL', 'HIGH',
   'OPEN', '', 'Facility walk-through', '', '30 hours', NULL, NULL, NULL, false, NULL),
  (11, 'LIS1', '203', 'ac', 'Air conditioner leaking water', 'Drips onto the desk below the unit.', 'HVAC', 'HIGH',
   'IN_PROGRESS', '', 'Housekeeping (Inês)', 'Rui Costa', '20 hours', '1 hour', NULL, NULL, false,
   'Drain pipe blocked, cleaning it.'),
  (12, 'LIS1', 'G01', NULL, 'Shower drain slow', 'Water pools in the walk-in shower.', 'PLUMBING', 'MEDIUM',
   'OPEN', '', 'Guest via app', '', '2 days', NULL, NULL, NULL, false, NULL),
  (13, 'LIS1', '306', NULL, 'Terrace door lock stiff', 'Key turns only with force.', 'SAFETY', 'URGENT',
   'RESOLVED', '', 'Front desk (Tiago)', 'Rui Costa', '8 days', '20 minutes', '3 hours', NULL, false, NULL),
  (14, 'LIS1', '105', NULL, 'Sofa bed mechanism jammed', 'Cannot be folded out.', 'FURNITURE_FIXTURES', 'LOW',
   'ON_HOLD', 'Guest in room until Sunday', 'Housekeeping (Inês)', 'Rui Costa', '3 days', '5 hours', NULL, NULL,
   false, NULL),
  (15, 'LIS1', '201', NULL, 'Wall socket loose', 'Socket by the bed moves when a plug is inserted.', 'ELECTRICAL',
   'HIGH', 'CLOSED', '', 'Guest via front desk', 'Rui Costa', '15 days', '1 hour', '6 hours', '1 day', false, NULL),
  (16, 'LIS1', '302', NULL, 'Peeling paint on ceiling', 'Near the balcony door.', 'STRUCTURAL', 'LOW',
   'CANCELLED', 'Duplicate of the facility renovation plan', 'Facility walk-through', '', '25 days', '2 days', NULL,
   NULL, false, NULL),
  (17, 'LIS1', '104', NULL, 'Kettle missing', 'No kettle in the room.', 'OTHER', 'LOW',
   'RESOLVED', '', 'Guest via app', 'Inês Sousa', '30 hours', '1 hour', '2 hours', NULL, false, NULL);

INSERT INTO issues (id, property_id, room_number, equipment_id, title, description, category, priority, status,
                    status_reason, reported_by, assignee, take_room_out_of_order, created_at, updated_at, updated_by,
                    resolved_at, first_response_at, resolve_by, version)
SELECT md5('seed-issue-' || s.n)::uuid, s.property_id, s.room_number,
       CASE WHEN s.equipment IS NOT NULL
            THEN md5('seed-equipment-' || s.equipment || '-' || s.property_id || '-' || s.room_number)::uuid END,
       s.title, s.description, s.category, s.priority, s.status, s.reason, s.reported_by, s.assignee,
       s.takes_room AND s.status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD'),
       now() - s.age,
       now() - s.age + greatest(interval '0', s.responded, s.resolved, s.closed,
                               CASE WHEN s.comment IS NOT NULL THEN s.responded + interval '10 minutes' END,
                               CASE WHEN s.status = 'ON_HOLD' THEN s.responded + interval '20 minutes' END),
       CASE WHEN s.responded IS NULL THEN s.reported_by ELSE coalesce(nullif(s.assignee, ''), s.reported_by) END,
       CASE WHEN s.status IN ('RESOLVED', 'CLOSED') THEN now() - s.age + s.resolved END,
       now() - s.age + s.responded,
       now() - s.age + CASE s.priority WHEN 'URGENT' THEN interval '4 hours' WHEN 'HIGH' THEN interval '24 hours'
                                       WHEN 'MEDIUM' THEN interval '72 hours' ELSE interval '168 hours' END,
       1 + (s.responded IS NOT NULL)::int + (s.resolved IS NOT NULL)::int + (s.closed IS NOT NULL)::int
         + (s.status = 'ON_HOLD')::int + (s.comment IS NOT NULL)::int
FROM seed_issues s;

-- Timelines, in the order the changes happened.
INSERT INTO issue_events (id, issue_id, at, actor, type, field, from_value, to_value, note)
SELECT md5('seed-issue-event-' || e.n || '-' || e.k)::uuid, md5('seed-issue-' || e.n)::uuid, e.at, e.actor, e.type,
       '', e.from_value, e.to_value, e.note
FROM (
  SELECT n, 1 AS k, now() - age AS at, reported_by AS actor, 'CREATED' AS type, '' AS from_value, 'OPEN' AS to_value,
         '' AS note
  FROM seed_issues
  UNION ALL
  SELECT n, 2, now() - age + interval '1 second', reported_by, 'ROOM_OUT_OF_ORDER', 'false', 'true',
         'Room taken out of order: ' || title
  FROM seed_issues WHERE takes_room
  UNION ALL
  SELECT n, 3, now() - age + responded, coalesce(nullif(assignee, ''), 'Duty manager'), 'STATUS_CHANGED', 'OPEN',
         CASE status WHEN 'CANCELLED' THEN 'CANCELLED' ELSE 'IN_PROGRESS' END,
         CASE status WHEN 'CANCELLED' THEN reason ELSE '' END
  FROM seed_issues WHERE responded IS NOT NULL
  UNION ALL
  SELECT n, 4, now() - age + responded + interval '10 minutes', coalesce(nullif(assignee, ''), 'Duty manager'),
         'COMMENT', '', '', comment
  FROM seed_issues WHERE comment IS NOT NULL
  UNION ALL
  SELECT n, 5, now() - age + responded + interval '20 minutes', assignee, 'STATUS_CHANGED', 'IN_PROGRESS', 'ON_HOLD',
         reason
  FROM seed_issues WHERE status = 'ON_HOLD'
  UNION ALL
  SELECT n, 6, now() - age + resolved, assignee, 'STATUS_CHANGED', 'IN_PROGRESS', 'RESOLVED', 'Fixed.'
  FROM seed_issues WHERE resolved IS NOT NULL
  UNION ALL
  SELECT n, 7, now() - age + resolved, assignee, 'ROOM_BACK_IN_SERVICE', 'true', 'false', 'Room returned to service.'
  FROM seed_issues WHERE resolved IS NOT NULL AND takes_room
  UNION ALL
  SELECT n, 8, now() - age + closed, 'Duty manager', 'STATUS_CHANGED', 'RESOLVED', 'CLOSED', 'Checked and closed.'
  FROM seed_issues WHERE closed IS NOT NULL
) e
ORDER BY e.at, e.n, e.k;

-- Open issues that hold their room out of order.
UPDATE rooms r SET out_of_order = true, out_of_order_reason = 'Maintenance issue: ' || i.title,
                   out_of_order_since = i.created_at
FROM issues i
WHERE i.take_room_out_of_order AND r.property_id = i.property_id AND r.number = i.room_number;
