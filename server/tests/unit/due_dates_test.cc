#include "schedules/due_dates.h"

#include <gtest/gtest.h>

#include "absl/time/time.h"
#include "common/errors.h"
#include "schedules/schedule_completion.h"

namespace hotel::schedules {
namespace {

using hotel::v1::Schedule;

absl::CivilDay D(const char* text) {
  auto day = ParseDate(text);
  EXPECT_TRUE(day.has_value()) << text;
  return day.value_or(absl::CivilDay());
}

std::string F(absl::CivilDay day) { return FormatDate(day); }

absl::Time Utc(const char* rfc3339) {
  absl::Time t;
  std::string error;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &error)) << error;
  return t;
}

ScheduleRule Rule(IntervalUnit unit, int count, Basis basis, const char* starts_on) {
  return ScheduleRule{unit, count, basis, D(starts_on)};
}

TEST(Dates, ParseAndFormatStrictIsoDates) {
  EXPECT_EQ(F(D("2024-02-29")), "2024-02-29");
  for (const char* bad : {"", "2025-02-29", "2024-13-01", "2024-00-10", "2024-1-5", "24-01-05", "2024-01-05T00:00",
                          "2024/01/05", "1899-12-31", "3000-01-01", "2024-04-31"}) {
    EXPECT_FALSE(ParseDate(bad).has_value()) << bad;
  }
}

TEST(AddInterval, MonthEndsAreClamped) {
  EXPECT_EQ(F(AddInterval(D("2025-01-31"), Schedule::MONTH, 1)), "2025-02-28");
  EXPECT_EQ(F(AddInterval(D("2024-01-31"), Schedule::MONTH, 1)), "2024-02-29");  // leap year
  EXPECT_EQ(F(AddInterval(D("2025-03-31"), Schedule::MONTH, 1)), "2025-04-30");
  EXPECT_EQ(F(AddInterval(D("2025-01-30"), Schedule::MONTH, 1)), "2025-02-28");
  EXPECT_EQ(F(AddInterval(D("2025-01-15"), Schedule::MONTH, 1)), "2025-02-15");
  EXPECT_EQ(F(AddInterval(D("2025-08-31"), Schedule::MONTH, 6)), "2026-02-28");
  EXPECT_EQ(F(AddInterval(D("2025-12-31"), Schedule::MONTH, 2)), "2026-02-28");
  EXPECT_EQ(F(AddInterval(D("2025-11-30"), Schedule::MONTH, 3)), "2026-02-28");
  EXPECT_EQ(F(AddInterval(D("2025-03-31"), Schedule::MONTH, -1)), "2025-02-28");
}

TEST(AddInterval, LeapYears) {
  EXPECT_EQ(F(AddInterval(D("2024-02-29"), Schedule::YEAR, 1)), "2025-02-28");
  EXPECT_EQ(F(AddInterval(D("2024-02-29"), Schedule::YEAR, 4)), "2028-02-29");
  EXPECT_EQ(F(AddInterval(D("2096-02-29"), Schedule::YEAR, 4)), "2100-02-28");  // 2100 is not a leap year
  EXPECT_EQ(F(AddInterval(D("1996-02-29"), Schedule::YEAR, 4)), "2000-02-29");  // 2000 is
  EXPECT_EQ(F(AddInterval(D("2024-02-28"), Schedule::DAY, 1)), "2024-02-29");
  EXPECT_EQ(F(AddInterval(D("2025-02-28"), Schedule::DAY, 1)), "2025-03-01");
}

TEST(AddInterval, DaysAndWeeksCrossMonthsAndYears) {
  EXPECT_EQ(F(AddInterval(D("2025-12-30"), Schedule::DAY, 3)), "2026-01-02");
  EXPECT_EQ(F(AddInterval(D("2025-12-29"), Schedule::WEEK, 1)), "2026-01-05");
  EXPECT_EQ(F(AddInterval(D("2024-02-22"), Schedule::WEEK, 1)), "2024-02-29");
  EXPECT_EQ(F(AddInterval(D("2025-01-01"), Schedule::WEEK, 52)), "2025-12-31");
}

TEST(Occurrence, MonthlyGridDoesNotDriftAfterAShortMonth) {
  auto rule = Rule(Schedule::MONTH, 1, Schedule::SCHEDULED_DATE, "2025-01-31");
  EXPECT_EQ(F(Occurrence(rule, 0)), "2025-01-31");
  EXPECT_EQ(F(Occurrence(rule, 1)), "2025-02-28");
  EXPECT_EQ(F(Occurrence(rule, 2)), "2025-03-31");
  EXPECT_EQ(F(Occurrence(rule, 3)), "2025-04-30");
  EXPECT_EQ(F(Occurrence(rule, 13)), "2026-02-28");
}

TEST(NextDueDate, ScheduledDateOnTimeEarlyAndLate) {
  auto rule = Rule(Schedule::MONTH, 1, Schedule::SCHEDULED_DATE, "2025-01-31");
  // On time: Jan 31 + 1 month = Feb 28.
  EXPECT_EQ(F(NextDueDate(rule, D("2025-01-31"), D("2025-01-31"))), "2025-02-28");
  // Early: still the next occurrence, not earlier.
  EXPECT_EQ(F(NextDueDate(rule, D("2025-01-31"), D("2025-01-20"))), "2025-02-28");
  // From Feb 28 the grid goes back to the 31st.
  EXPECT_EQ(F(NextDueDate(rule, D("2025-02-28"), D("2025-02-28"))), "2025-03-31");
  // A few days late: the next occurrence after the due date.
  EXPECT_EQ(F(NextDueDate(rule, D("2025-01-31"), D("2025-02-05"))), "2025-02-28");
  // More than one interval late: missed occurrences in the past are skipped.
  EXPECT_EQ(F(NextDueDate(rule, D("2025-01-31"), D("2025-04-10"))), "2025-04-30");
  // Completed on the next occurrence's day: that one counts as past as well.
  EXPECT_EQ(F(NextDueDate(rule, D("2025-01-31"), D("2025-02-28"))), "2025-03-31");
}

TEST(NextDueDate, ScheduledDateInLeapYears) {
  auto monthly = Rule(Schedule::MONTH, 1, Schedule::SCHEDULED_DATE, "2024-01-31");
  EXPECT_EQ(F(NextDueDate(monthly, D("2024-01-31"), D("2024-01-31"))), "2024-02-29");
  auto yearly = Rule(Schedule::YEAR, 1, Schedule::SCHEDULED_DATE, "2024-02-29");
  EXPECT_EQ(F(NextDueDate(yearly, D("2024-02-29"), D("2024-02-29"))), "2025-02-28");
  EXPECT_EQ(F(NextDueDate(yearly, D("2027-02-28"), D("2027-03-01"))), "2028-02-29");
}

TEST(NextDueDate, ScheduledDateWithCountsAndWeeks) {
  auto quarterly = Rule(Schedule::MONTH, 3, Schedule::SCHEDULED_DATE, "2025-11-30");
  EXPECT_EQ(F(NextDueDate(quarterly, D("2025-11-30"), D("2025-12-01"))), "2026-02-28");
  EXPECT_EQ(F(NextDueDate(quarterly, D("2026-02-28"), D("2026-02-28"))), "2026-05-30");
  auto fortnightly = Rule(Schedule::WEEK, 2, Schedule::SCHEDULED_DATE, "2025-01-06");
  EXPECT_EQ(F(NextDueDate(fortnightly, D("2025-01-06"), D("2025-01-07"))), "2025-01-20");
  EXPECT_EQ(F(NextDueDate(fortnightly, D("2025-01-06"), D("2025-02-10"))), "2025-02-17");
  auto daily = Rule(Schedule::DAY, 1, Schedule::SCHEDULED_DATE, "2025-01-01");
  EXPECT_EQ(F(NextDueDate(daily, D("2025-01-01"), D("2025-01-01"))), "2025-01-02");
  auto every10days = Rule(Schedule::DAY, 10, Schedule::SCHEDULED_DATE, "2025-01-01");
  EXPECT_EQ(F(NextDueDate(every10days, D("2025-01-11"), D("2025-01-25"))), "2025-01-31");
}

TEST(NextDueDate, CompletedDateCountsFromTheCompletion) {
  auto rule = Rule(Schedule::MONTH, 1, Schedule::COMPLETED_DATE, "2025-01-31");
  EXPECT_EQ(F(NextDueDate(rule, D("2025-01-31"), D("2025-01-31"))), "2025-02-28");
  EXPECT_EQ(F(NextDueDate(rule, D("2025-01-31"), D("2025-02-10"))), "2025-03-10");
  EXPECT_EQ(F(NextDueDate(rule, D("2025-01-31"), D("2025-01-20"))), "2025-02-20");
  auto weekly = Rule(Schedule::WEEK, 1, Schedule::COMPLETED_DATE, "2025-01-01");
  EXPECT_EQ(F(NextDueDate(weekly, D("2025-01-01"), D("2025-01-03"))), "2025-01-10");
  auto yearly = Rule(Schedule::YEAR, 1, Schedule::COMPLETED_DATE, "2020-01-01");
  EXPECT_EQ(F(NextDueDate(yearly, D("2024-01-01"), D("2024-02-29"))), "2025-02-28");
}

TEST(DaysLate, OnlyAfterTheDueDate) {
  EXPECT_EQ(DaysLate(D("2025-01-31"), D("2025-01-31")), 0);
  EXPECT_EQ(DaysLate(D("2025-01-31"), D("2025-01-01")), 0);
  EXPECT_EQ(DaysLate(D("2025-01-31"), D("2025-02-02")), 2);
  EXPECT_EQ(DaysLate(D("2024-02-28"), D("2024-03-01")), 2);  // through Feb 29
}

TEST(LocalDay, DependsOnThePropertyTimeZone) {
  // 23:30 UTC on Jan 31 is already Feb 1 in Berlin (UTC+1) but still Jan 31 in Lisbon (UTC+0).
  absl::Time t = Utc("2025-01-31T23:30:00Z");
  EXPECT_EQ(F(LocalDay(t, "Europe/Berlin")), "2025-02-01");
  EXPECT_EQ(F(LocalDay(t, "Europe/Lisbon")), "2025-01-31");
  // Summer time: 22:30 UTC on Jul 1 is Jul 2 in Berlin (UTC+2), 23:30 in Lisbon (UTC+1).
  absl::Time summer = Utc("2025-07-01T22:30:00Z");
  EXPECT_EQ(F(LocalDay(summer, "Europe/Berlin")), "2025-07-02");
  EXPECT_EQ(F(LocalDay(summer, "Europe/Lisbon")), "2025-07-01");
  // West of UTC the local date lags behind.
  EXPECT_EQ(F(LocalDay(Utc("2025-03-01T03:00:00Z"), "America/New_York")), "2025-02-28");
  // Unknown zones fall back to UTC rather than failing.
  EXPECT_EQ(F(LocalDay(t, "Mars/Olympus_Mons")), "2025-01-31");
}

ScheduleState State(const char* next_due, Basis basis = Schedule::SCHEDULED_DATE) {
  ScheduleState state;
  state.rule = Rule(Schedule::MONTH, 1, basis, "2025-01-31");
  state.next_due_on = D(next_due);
  state.time_zone = "Europe/Berlin";
  return state;
}

TEST(DecideCompletion, OnTimeAndLateInThePropertysTimeZone) {
  CompletionInput input;
  input.completed_by = "Jonas";
  auto on_time = DecideCompletion(State("2025-01-31"), input, Utc("2025-01-31T10:00:00Z"));
  ASSERT_TRUE(on_time.ok()) << on_time.status();
  EXPECT_FALSE(on_time->late);
  EXPECT_EQ(F(on_time->due_on), "2025-01-31");
  EXPECT_EQ(F(on_time->next_due_on), "2025-02-28");
  // 23:30 UTC is already the next day in Berlin: one day late.
  auto late = DecideCompletion(State("2025-01-31"), input, Utc("2025-01-31T23:30:00Z"));
  ASSERT_TRUE(late.ok());
  EXPECT_TRUE(late->late);
  EXPECT_EQ(late->days_late, 1);
  EXPECT_EQ(F(late->completed_on), "2025-02-01");
}

TEST(DecideCompletion, CompletedDateBasisUsesTheLocalCompletionDate) {
  CompletionInput input;
  input.completed_at = Utc("2025-02-09T23:30:00Z");  // Feb 10 in Berlin
  auto decision = DecideCompletion(State("2025-01-31", Schedule::COMPLETED_DATE), input, Utc("2025-02-11T00:00:00Z"));
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(F(decision->completed_on), "2025-02-10");
  EXPECT_EQ(F(decision->next_due_on), "2025-03-10");
  EXPECT_EQ(decision->days_late, 10);
}

TEST(DecideCompletion, RefusesDoubleSubmissionsAndStaleOccurrences) {
  ScheduleState state = State("2025-02-28");
  state.last_completed_at = Utc("2025-01-31T09:00:00Z");
  CompletionInput again;
  auto twice = DecideCompletion(state, again, Utc("2025-01-31T09:00:05Z"));
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(ErrorReason(twice.status()), "ALREADY_COMPLETED");

  // With expected_due_on the client says which occurrence it completes.
  CompletionInput next_one;
  next_one.expected_due_on = D("2025-02-28");
  EXPECT_TRUE(DecideCompletion(state, next_one, Utc("2025-01-31T09:00:05Z")).ok());
  CompletionInput stale;
  stale.expected_due_on = D("2025-01-31");
  EXPECT_EQ(ErrorReason(DecideCompletion(state, stale, Utc("2025-01-31T09:00:05Z")).status()), "DUE_DATE_MISMATCH");

  // The next day is a new completion.
  EXPECT_TRUE(DecideCompletion(state, again, Utc("2025-02-01T09:00:00Z")).ok());
}

TEST(DecideCompletion, InactiveSchedulesAndFutureTimesAreRefused) {
  ScheduleState inactive = State("2025-01-31");
  inactive.active = false;
  EXPECT_EQ(ErrorReason(DecideCompletion(inactive, {}, Utc("2025-01-31T10:00:00Z")).status()), "SCHEDULE_INACTIVE");

  CompletionInput future;
  future.completed_at = Utc("2025-01-31T11:00:00Z");
  auto status = DecideCompletion(State("2025-01-31"), future, Utc("2025-01-31T10:00:00Z")).status();
  ASSERT_EQ(FieldViolations(status).size(), 1u);
  EXPECT_EQ(FieldViolations(status)[0].field, "completed_at");
  // A few seconds of clock skew are tolerated.
  future.completed_at = Utc("2025-01-31T10:00:30Z");
  EXPECT_TRUE(DecideCompletion(State("2025-01-31"), future, Utc("2025-01-31T10:00:00Z")).ok());
}

TEST(DecideCompletion, TheScheduleEndsAfterItsLastOccurrence) {
  ScheduleState state = State("2025-03-31");
  state.ends_on = D("2025-04-15");
  auto last = DecideCompletion(state, {}, Utc("2025-03-31T10:00:00Z"));
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(F(last->next_due_on), "2025-04-30");
  EXPECT_FALSE(last->still_active);
  state.ends_on = D("2025-04-30");
  EXPECT_TRUE(DecideCompletion(state, {}, Utc("2025-03-31T10:00:00Z"))->still_active);
}

}  // namespace
}  // namespace hotel::schedules
