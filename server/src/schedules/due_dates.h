// Calendar arithmetic of maintenance schedules: intervals with month-end clamping, the next due
// date by basis, local dates in a property's time zone. Pure functions, unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "common/dates.h"
#include "hotel/v1/maintenance.pb.h"

namespace hotel::schedules {

using IntervalUnit = hotel::v1::Schedule::IntervalUnit;
using Basis = hotel::v1::Schedule::Basis;

// day + count units. MONTH and YEAR clamp to the last day of the target month
// (Jan 31 + 1 MONTH = Feb 28 or 29; Feb 29 + 1 YEAR = Feb 28). count may be negative.
absl::CivilDay AddInterval(absl::CivilDay day, IntervalUnit unit, int64_t count);

struct ScheduleRule {
  IntervalUnit unit = hotel::v1::Schedule::DAY;
  int interval_count = 1;
  Basis basis = hotel::v1::Schedule::SCHEDULED_DATE;
  absl::CivilDay starts_on;  // anchor of the SCHEDULED_DATE grid
};

// The n-th occurrence (n >= 0) of the fixed calendar: starts_on + n * interval, each clamped from
// the anchor (so Jan 31 monthly gives Feb 28, Mar 31, Apr 30: no drift to the 28th).
absl::CivilDay Occurrence(const ScheduleRule& rule, int64_t n);

// next_due_on after completing the occurrence due on `due_on` on local date `completed_on`:
//   SCHEDULED_DATE: the first occurrence of the grid after both due_on and completed_on
//                   (completing early or on time: the following occurrence; completing more than
//                   one interval late skips the occurrences already in the past);
//   COMPLETED_DATE: completed_on + one interval.
absl::CivilDay NextDueDate(const ScheduleRule& rule, absl::CivilDay due_on, absl::CivilDay completed_on);

// Days completed_on is after due_on; 0 when on time or early.
int DaysLate(absl::CivilDay due_on, absl::CivilDay completed_on);

}  // namespace hotel::schedules
