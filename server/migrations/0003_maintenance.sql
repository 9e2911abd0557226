-- Maintenance: equipment, schedules with their completions, issues with their timelines.
-- Idempotent creates: request_id is unique per table (NULL when the client sent none) and
-- request_hash fingerprints the request, so a reused id with another payload is detected.

CREATE TABLE equipment (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  property_id         text NOT NULL,
  room_number         text COLLATE "C" NOT NULL,
  name                text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  type                text NOT NULL CHECK (type ~ '^[a-z][a-z0-9_]{1,39}$'),
  manufacturer        text NOT NULL DEFAULT '',
  model               text NOT NULL DEFAULT '',
  serial_number       text NOT NULL DEFAULT '',
  installed_on        date,
  warranty_expires_on date,
  status              text NOT NULL DEFAULT 'OPERATIONAL' CHECK (status IN ('OPERATIONAL', 'DOWN', 'RETIRED')),
  notes               text NOT NULL DEFAULT '',
  request_id          text UNIQUE,
  request_hash        text,
  created_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  FOREIGN KEY (property_id, room_number) REFERENCES rooms (property_id, number),
  CHECK (warranty_expires_on IS NULL OR installed_on IS NULL OR warranty_expires_on >= installed_on)
);
-- List order of a room's equipment; also serves the equipment count of rooms.
CREATE INDEX equipment_room ON equipment (property_id, room_number, created_at, id);
CREATE INDEX equipment_status ON equipment (status);
-- Room.equipment_count of the room lists and details (an index look-up per room).
CREATE FUNCTION room_equipment_count(room_property_id text, room_number text) RETURNS integer
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT count(*)::integer FROM equipment e
        WHERE e.property_id = room_property_id AND e.room_number = room_equipment_count.room_number $$;

CREATE TABLE maintenance_schedules (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  property_id       text NOT NULL,
  room_number       text COLLATE "C" NOT NULL,
  equipment_id      uuid REFERENCES equipment (id),
  task              text NOT NULL CHECK (length(task) BETWEEN 1 AND 200),
  interval_unit     text NOT NULL CHECK (interval_unit IN ('DAY', 'WEEK', 'MONTH', 'YEAR')),
  interval_count    integer NOT NULL CHECK (interval_count BETWEEN 1 AND 1000),
  starts_on         date NOT NULL,
  ends_on           date CHECK (ends_on IS NULL OR ends_on >= starts_on),
  basis             text NOT NULL CHECK (basis IN ('SCHEDULED_DATE', 'COMPLETED_DATE')),
  next_due_on       date NOT NULL,
  last_completed_at timestamptz,
  active            boolean NOT NULL DEFAULT true,
  request_id        text UNIQUE,
  request_hash      text,
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  FOREIGN KEY (property_id, room_number) REFERENCES rooms (property_id, number)
);
-- List order: property, room, creation time.
CREATE INDEX schedules_list ON maintenance_schedules (property_id, room_number, created_at, id);
-- Overdue and due-soon counts only look at active schedules.
CREATE INDEX schedules_active_due ON maintenance_schedules (next_due_on) WHERE active;
CREATE INDEX schedules_equipment ON maintenance_schedules (equipment_id) WHERE equipment_id IS NOT NULL;

CREATE TABLE schedule_completions (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  schedule_id  uuid NOT NULL REFERENCES maintenance_schedules (id),
  due_on       date NOT NULL,
  completed_at timestamptz NOT NULL,
  completed_on date NOT NULL,
  completed_by text NOT NULL,
  notes        text NOT NULL DEFAULT '',
  late         boolean NOT NULL,
  days_late    integer NOT NULL DEFAULT 0,
  next_due_on  date NOT NULL,
  request_id   text UNIQUE,
  request_hash text,
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- One completion per occurrence: the last line of defence against double completion.
  UNIQUE (schedule_id, due_on)
);
CREATE INDEX schedule_completions_recent ON schedule_completions (schedule_id, completed_at DESC);

CREATE TABLE issues (
  id                      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  property_id             text NOT NULL REFERENCES properties (id),
  room_number             text COLLATE "C" NOT NULL,
  equipment_id            uuid REFERENCES equipment (id),
  title                   text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  description             text NOT NULL DEFAULT '',
  category                text NOT NULL CHECK (category IN ('PLUMBING', 'ELECTRICAL', 'HVAC', 'SAFETY', 'MECHANICAL',
                            'FURNITURE_FIXTURES', 'APPLIANCE_ELECTRONICS', 'STRUCTURAL', 'HOUSEKEEPING', 'OTHER')),
  priority                text NOT NULL CHECK (priority IN ('LOW', 'MEDIUM', 'HIGH', 'URGENT')),
  status                  text NOT NULL DEFAULT 'OPEN'
                            CHECK (status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD', 'RESOLVED', 'CLOSED', 'CANCELLED')),
  status_reason           text NOT NULL DEFAULT '',
  reported_by             text NOT NULL,
  assignee                text NOT NULL DEFAULT '',
  take_room_out_of_order  boolean NOT NULL DEFAULT false,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  updated_by              text NOT NULL DEFAULT '',
  resolved_at             timestamptz,
  first_response_at       timestamptz,
  resolve_by              timestamptz NOT NULL,
  version                 integer NOT NULL DEFAULT 1,
  request_id              text UNIQUE,
  request_hash            text,
  FOREIGN KEY (property_id, room_number) REFERENCES rooms (property_id, number),
  CHECK (NOT take_room_out_of_order OR status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD'))
);
-- List order (newest first), alone and under the usual filters.
CREATE INDEX issues_list ON issues (created_at DESC, id DESC);
CREATE INDEX issues_property_list ON issues (property_id, created_at DESC, id DESC);
CREATE INDEX issues_room_list ON issues (property_id, room_number, created_at DESC, id DESC);
CREATE INDEX issues_status_list ON issues (status, created_at DESC, id DESC);
CREATE INDEX issues_priority_list ON issues (priority, created_at DESC, id DESC);
CREATE INDEX issues_category_list ON issues (category, created_at DESC, id DESC);
-- Open issues are few among many closed ones: dashboards, overdue counts and the room overview
-- read them through this partial index.
CREATE INDEX issues_open ON issues (property_id, room_number, priority, resolve_by)
  WHERE status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD');
-- Statistics over a window of created_at read only the columns they aggregate.
CREATE INDEX issues_stats ON issues (created_at)
  INCLUDE (property_id, status, priority, category, resolved_at, first_response_at, resolve_by);
CREATE INDEX issues_equipment ON issues (equipment_id) WHERE equipment_id IS NOT NULL;

CREATE TABLE issue_events (
  seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id         uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  issue_id   uuid NOT NULL REFERENCES issues (id),
  at         timestamptz NOT NULL DEFAULT now(),
  actor      text NOT NULL,
  type       text NOT NULL CHECK (type IN ('CREATED', 'STATUS_CHANGED', 'PRIORITY_CHANGED', 'ASSIGNEE_CHANGED',
                'FIELD_CHANGED', 'COMMENT', 'ROOM_OUT_OF_ORDER', 'ROOM_BACK_IN_SERVICE')),
  field      text NOT NULL DEFAULT '',
  from_value text NOT NULL DEFAULT '',
  to_value   text NOT NULL DEFAULT '',
  note       text NOT NULL DEFAULT ''
);
CREATE INDEX issue_events_issue ON issue_events (issue_id, seq);
