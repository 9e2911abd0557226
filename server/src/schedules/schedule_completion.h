// The decision a COMPLETE action makes on a locked schedule: which occurrence it completes, how
// late, and the next due date. Pure, unit-tested (with due_dates, the calendar arithmetic).
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "schedules/due_dates.h"
#include "schedules/schedule_request.h"

namespace hotel::schedules {

// The locked schedule a completion applies to.
struct ScheduleState {
  bool active = true;
  ScheduleRule rule;
  absl::CivilDay next_due_on;
  std::optional<absl::CivilDay> ends_on;
  std::optional<absl::Time> last_completed_at;
  std::string time_zone;
};

struct CompletionDecision {
  absl::Time completed_at;
  absl::CivilDay due_on;        // the occurrence completed
  absl::CivilDay completed_on;  // local date of completed_at
  absl::CivilDay next_due_on;
  bool late = false;
  int days_late = 0;
  bool still_active = true;  // false once next_due_on passes ends_on
};

// Decides a completion: FAILED_PRECONDITION SCHEDULE_INACTIVE for an ended schedule,
// INVALID_ARGUMENT for completed_at in the future (more than 5 minutes after now), ABORTED
// DUE_DATE_MISMATCH when expected_due_on is not the current occurrence, ABORTED
// ALREADY_COMPLETED when no expected_due_on is given and the schedule was already completed on
// the same local day (a double submission).
absl::StatusOr<CompletionDecision> DecideCompletion(const ScheduleState& schedule, const CompletionInput& input,
                                                    absl::Time now);

}  // namespace hotel::schedules
