-- Room data: properties, room types, rooms.
CREATE TABLE properties (
  id           text PRIMARY KEY CHECK (id ~ '^[A-Z][A-Z0-9]{1,9}$'),
  name         text NOT NULL,
  enabled      boolean NOT NULL DEFAULT true,
  time_zone    text NOT NULL,
  city         text NOT NULL,
  country_code text NOT NULL CHECK (country_code ~ '^[A-Z]{2}$'),
  created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE room_types (
  id          text PRIMARY KEY,
  property_id text NOT NULL REFERENCES properties (id),
  code        text NOT NULL,
  name        text NOT NULL,
  description text NOT NULL DEFAULT '',
  category    text NOT NULL CHECK (category IN ('STANDARD', 'SUPERIOR', 'DELUXE', 'SUITE', 'FAMILY', 'ACCESSIBLE')),
  amenities   text[] NOT NULL DEFAULT '{}',
  size_sqm    numeric(6, 1) NOT NULL CHECK (size_sqm > 0),
  max_guests  integer NOT NULL CHECK (max_guests >= 1),
  bed_type    text NOT NULL,
  UNIQUE (property_id, code),
  CHECK (id = property_id || '-' || code)
);
CREATE INDEX room_types_property ON room_types (property_id, id);

CREATE TABLE rooms (
  property_id         text NOT NULL REFERENCES properties (id),
  number              text COLLATE "C" NOT NULL CHECK (number ~ '^[0-9A-Za-z-]{1,10}$'),
  floor               integer NOT NULL,
  room_type_id        text NOT NULL REFERENCES room_types (id),
  extra_amenities     text[] NOT NULL DEFAULT '{}',
  out_of_order        boolean NOT NULL DEFAULT false,
  out_of_order_reason text NOT NULL DEFAULT '',
  out_of_order_since  timestamptz,
  PRIMARY KEY (property_id, number)
);
-- Keyset order of room lists: property, floor, number.
CREATE UNIQUE INDEX rooms_list_order ON rooms (property_id, floor, number);
CREATE INDEX rooms_room_type ON rooms (room_type_id);
