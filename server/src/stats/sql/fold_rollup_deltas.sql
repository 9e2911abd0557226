-- Folds the appended rollup deltas into the rollups (migration 0009); returns how many it moved.
SELECT fold_rollup_deltas() AS moved
