-- Housekeeping policies (1.5.0, docs/housekeeping.md): per property, what check-out and the night
-- do to a room's condition and whether a room must be inspected to be ready. A property without a
-- row has the defaults (the columns' defaults), so nothing is written for existing properties.
-- Expand only: a new table and a wider change-log type check; a 1.4 server never reads the table.
SET LOCAL lock_timeout = '5s';

CREATE TABLE housekeeping_policies (
  property_id                text PRIMARY KEY REFERENCES properties (id) ON DELETE CASCADE,  -- goes with its property
  -- The change feed names a resource by its row's id (stage_change): a policy's is its property's.
  id                         text GENERATED ALWAYS AS (property_id) STORED,
  checkout_condition         text NOT NULL DEFAULT 'DIRTY' CHECK (checkout_condition IN ('DIRTY', 'KEEP')),
  occupied_nightly_condition text NOT NULL DEFAULT 'DIRTY' CHECK (occupied_nightly_condition IN ('DIRTY', 'KEEP')),
  vacant_nightly_downgrade   text NOT NULL DEFAULT 'NONE'
    CHECK (vacant_nightly_downgrade IN ('NONE', 'INSPECTED_TO_CLEAN')),
  vacant_dirty_after_days    integer NOT NULL DEFAULT 0 CHECK (vacant_dirty_after_days BETWEEN 0 AND 7),
  inspection_required        boolean NOT NULL DEFAULT true,
  version                    bigint NOT NULL DEFAULT 1,
  updated_at                 timestamptz NOT NULL DEFAULT now(),
  updated_by                 text NOT NULL DEFAULT ''
);

CREATE TRIGGER housekeeping_policies_bump_version BEFORE UPDATE ON housekeeping_policies
  FOR EACH ROW EXECUTE FUNCTION bump_row_version();
CREATE TRIGGER housekeeping_policies_stage_change AFTER INSERT OR UPDATE OR DELETE ON housekeeping_policies
  FOR EACH ROW EXECUTE FUNCTION stage_change('HOUSEKEEPING_POLICY');

-- The change log takes the new resource type. NOT VALID: the rows already there were checked by
-- the narrower rule; only new rows need this one.
ALTER TABLE change_log DROP CONSTRAINT change_log_resource_type_check;
ALTER TABLE change_log ADD CONSTRAINT change_log_resource_type_check
  CHECK (resource_type IN ('PROPERTY', 'ROOM_TYPE', 'ROOM', 'IMAGE', 'EQUIPMENT', 'SCHEDULE', 'ISSUE', 'ROOM_BLOCK',
                           'HOUSEKEEPING_POLICY'))
  NOT VALID;
