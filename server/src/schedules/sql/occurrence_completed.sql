-- $1 schedule id, $2 due on: a row when that occurrence has a completion.
SELECT 1 FROM schedule_completions WHERE schedule_id = $1::uuid AND due_on = $2::date
