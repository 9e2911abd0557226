-- For the rest of the transaction, plans every statement for its parameters: the statistics bind
-- the property as ($1 = '' OR x.property_id = $1), which only a plan for the value folds into an
-- index condition (a generic plan, which PostgreSQL may switch to after five calls, cannot).
SELECT set_config('plan_cache_mode', 'force_custom_plan', true)
