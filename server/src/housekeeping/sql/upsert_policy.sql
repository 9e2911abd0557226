-- Stores a property's policy (the property locked by lock_property.sql): the first change inserts
-- it (a CREATED HOUSEKEEPING_POLICY change), later ones update it (UPDATED; the version trigger
-- counts them). $1 property id, $2 checkout_condition, $3 occupied_nightly_condition,
-- $4 vacant_nightly_downgrade, $5 vacant_dirty_after_days, $6 inspection_required, $7 actor.
INSERT INTO housekeeping_policies AS h (property_id, checkout_condition, occupied_nightly_condition,
                                        vacant_nightly_downgrade, vacant_dirty_after_days, inspection_required,
                                        updated_by)
VALUES ($1, $2, $3, $4, $5::int, $6::bool, $7)
ON CONFLICT (property_id) DO UPDATE
SET checkout_condition = EXCLUDED.checkout_condition, occupied_nightly_condition = EXCLUDED.occupied_nightly_condition,
    vacant_nightly_downgrade = EXCLUDED.vacant_nightly_downgrade,
    vacant_dirty_after_days = EXCLUDED.vacant_dirty_after_days, inspection_required = EXCLUDED.inspection_required,
    updated_by = EXCLUDED.updated_by, updated_at = now()
