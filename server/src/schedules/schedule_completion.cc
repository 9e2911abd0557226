#include "schedules/schedule_completion.h"

#include "absl/strings/str_cat.h"
#include "common/dates.h"
#include "common/errors.h"

namespace hotel::schedules {
namespace {

constexpr absl::Duration kClockSkew = absl::Minutes(5);

}  // namespace

absl::StatusOr<CompletionDecision> DecideCompletion(const ScheduleState& schedule, const CompletionInput& input,
                                                    absl::Time now) {
  if (!schedule.active) {
    return FailedPreconditionError("SCHEDULE_INACTIVE", "the schedule has ended and cannot be completed");
  }
  CompletionDecision out;
  out.completed_at = input.completed_at.value_or(now);
  if (out.completed_at > now + kClockSkew) {
    return InvalidField("completed_at", "must not be in the future");
  }
  out.completed_on = LocalDay(out.completed_at, schedule.time_zone);
  out.due_on = schedule.next_due_on;
  if (input.expected_due_on) {
    if (*input.expected_due_on != schedule.next_due_on) {
      return AbortedError("DUE_DATE_MISMATCH",
                          absl::StrCat("the schedule's current occurrence is due on ", FormatDate(schedule.next_due_on),
                                       ", not ", FormatDate(*input.expected_due_on)));
    }
  } else if (schedule.last_completed_at &&
             LocalDay(*schedule.last_completed_at, schedule.time_zone) == out.completed_on) {
    return AbortedError("ALREADY_COMPLETED",
                        absl::StrCat("the schedule was already completed on ", FormatDate(out.completed_on),
                                     "; to complete the next occurrence (due ", FormatDate(schedule.next_due_on),
                                     ") as well, send expected_due_on"));
  }
  out.next_due_on = NextDueDate(schedule.rule, out.due_on, out.completed_on);
  out.days_late = DaysLate(out.due_on, out.completed_on);
  out.late = out.days_late > 0;
  out.still_active = !schedule.ends_on || out.next_due_on <= *schedule.ends_on;
  return out;
}

}  // namespace hotel::schedules
