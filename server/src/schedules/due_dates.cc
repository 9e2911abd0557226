#include "schedules/due_dates.h"

#include <algorithm>

namespace hotel::schedules {
namespace {

using hotel::v1::Schedule;

absl::CivilDay AddMonths(absl::CivilDay day, int64_t months) {
  const absl::CivilMonth target = absl::CivilMonth(day) + months;
  const int last = DaysInMonth(target.year(), target.month());
  return absl::CivilDay(target.year(), target.month(), std::min(day.day(), last));
}

}  // namespace

absl::CivilDay AddInterval(absl::CivilDay day, IntervalUnit unit, int64_t count) {
  switch (unit) {
    case Schedule::WEEK:
      return day + 7 * count;
    case Schedule::MONTH:
      return AddMonths(day, count);
    case Schedule::YEAR:
      return AddMonths(day, 12 * count);
    default:
      return day + count;  // DAY
  }
}

absl::CivilDay Occurrence(const ScheduleRule& rule, int64_t n) {
  return AddInterval(rule.starts_on, rule.unit, n * std::max(1, rule.interval_count));
}

absl::CivilDay NextDueDate(const ScheduleRule& rule, absl::CivilDay due_on, absl::CivilDay completed_on) {
  const int count = std::max(1, rule.interval_count);
  if (rule.basis == Schedule::COMPLETED_DATE) return AddInterval(completed_on, rule.unit, count);
  const absl::CivilDay after = std::max(due_on, completed_on);
  if (after < rule.starts_on) return rule.starts_on;
  // Estimate the occurrence index from the span in the interval's unit, then step to the first
  // occurrence after `after`. The estimate is never more than one step too high.
  int64_t span = 0;
  switch (rule.unit) {
    case Schedule::WEEK:
      span = (after - rule.starts_on) / 7;
      break;
    case Schedule::MONTH:
      span = absl::CivilMonth(after) - absl::CivilMonth(rule.starts_on);
      break;
    case Schedule::YEAR:
      span = absl::CivilYear(after) - absl::CivilYear(rule.starts_on);
      break;
    default:
      span = after - rule.starts_on;
      break;
  }
  int64_t n = std::max<int64_t>(0, span / count - 1);
  while (Occurrence(rule, n) > after && n > 0) --n;
  while (Occurrence(rule, n) <= after) ++n;
  return Occurrence(rule, n);
}

int DaysLate(absl::CivilDay due_on, absl::CivilDay completed_on) {
  return completed_on > due_on ? static_cast<int>(completed_on - due_on) : 0;
}

}  // namespace hotel::schedules
