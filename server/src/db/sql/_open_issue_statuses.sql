-- The statuses of an open issue: it still needs work, counts as open in the statistics and may
-- hold its room out of order. The one definition the statements use (`i.status IN
-- {{open_issue_statuses}}`); issues::IsOpenStatus is checked against it by
-- server/tests/unit/issue_state_machine_test.cc. Migration 0003's check and partial indexes
-- spell the same list, as written when they were created.
('OPEN', 'IN_PROGRESS', 'ON_HOLD')
