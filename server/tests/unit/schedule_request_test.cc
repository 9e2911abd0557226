#include "schedules/schedule_request.h"

#include <gtest/gtest.h>

#include "api/idempotency.h"
#include "common/dates.h"
#include "common/errors.h"
#include "common/page_token.h"
#include "schedules/schedule_sql.h"

namespace hotel::schedules {
namespace {

using namespace hotel::v1;

TEST(ListSchedules, OverdueIsComputedInThePropertysTimeZone) {
  ListSchedulesRequest request;
  request.set_overdue(true);
  request.set_property_id("LIS1");
  auto query = ParseListSchedules(request);
  ASSERT_TRUE(query.ok()) << query.status();
  db::SqlQuery sql = BuildListSchedulesSql(*query);
  EXPECT_NE(sql.text.find("(s.active AND s.next_due_on < (now() AT TIME ZONE p.time_zone)::date) = $2::bool"),
            std::string::npos)
      << sql.text;
  EXPECT_NE(sql.text.find("ORDER BY s.property_id, s.room_number, s.created_at, s.id"), std::string::npos);
  EXPECT_EQ(sql.params, (std::vector<std::string>{"LIS1", "true", "51"}));

  request.set_overdue(false);
  request.clear_property_id();
  auto not_overdue = ParseListSchedules(request);
  EXPECT_EQ(BuildListSchedulesSql(*not_overdue).params, (std::vector<std::string>{"false", "51"}));
  EXPECT_NE(Fingerprint(*query), Fingerprint(*not_overdue));
}

TEST(ListSchedules, TokenKeyHasPropertyRoomTimeAndId) {
  ListSchedulesRequest request;
  auto query = ParseListSchedules(request);
  const std::string id = "123e4567-e89b-12d3-a456-426614174000";
  request.set_page_token(EncodePageToken({"schedules", Fingerprint(*query), {"BER1", "101", "17", id}}));
  auto next = ParseListSchedules(request);
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(BuildListSchedulesSql(*next).params, (std::vector<std::string>{"BER1", "101", "17", id, "51"}));
  request.set_page_token(EncodePageToken({"schedules", Fingerprint(*query), {"BER1", "101", "17", "x"}}));
  EXPECT_EQ(ErrorReason(ParseListSchedules(request).status()), "INVALID_PAGE_TOKEN");
}

CreateScheduleRequest GoodSchedule() {
  CreateScheduleRequest request;
  request.set_property_id("BER1");
  request.set_room_number("101");
  request.set_task("Clean filters");
  request.set_interval_unit(Schedule::MONTH);
  request.set_interval_count(3);
  request.set_starts_on("2025-01-31");
  return request;
}

TEST(CreateSchedule, DefaultsToTheFixedCalendarStartingOnStartsOn) {
  auto schedule = ValidateCreateSchedule(GoodSchedule());
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_EQ(schedule->basis, "SCHEDULED_DATE");
  EXPECT_EQ(schedule->next_due_on, "2025-01-31");
  EXPECT_EQ(schedule->interval_unit, "MONTH");
}

TEST(CreateSchedule, BadFields) {
  CreateScheduleRequest request = GoodSchedule();
  request.clear_interval_unit();
  request.set_interval_count(0);
  request.set_starts_on("2025-02-30");
  request.set_task("");
  EXPECT_EQ(ViolatedFields(ValidateCreateSchedule(request).status()),
            (std::vector<std::string>{"task", "interval_unit", "interval_count", "starts_on"}));
  CreateScheduleRequest ends = GoodSchedule();
  ends.set_ends_on("2024-12-31");
  ends.set_basis(static_cast<Schedule::Basis>(5));
  EXPECT_EQ(ViolatedFields(ValidateCreateSchedule(ends).status()), (std::vector<std::string>{"ends_on", "basis"}));
}

TEST(ScheduleAction, CompleteNeedsWhoAndAValidAction) {
  ApplyScheduleActionRequest request;
  request.set_id("123e4567-e89b-12d3-a456-426614174000");
  request.set_action(ApplyScheduleActionRequest::COMPLETE);
  request.set_completed_by("Jonas");
  request.set_expected_due_on("2025-01-31");
  auto input = ValidateScheduleAction(request);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_FALSE(input->completed_at.has_value());
  EXPECT_EQ(FormatDate(*input->expected_due_on), "2025-01-31");

  ApplyScheduleActionRequest bad;
  bad.set_id("7");
  bad.set_expected_due_on("31.01.2025");
  bad.mutable_completed_at()->set_seconds(-5);
  EXPECT_EQ(ViolatedFields(ValidateScheduleAction(bad).status()),
            (std::vector<std::string>{"id", "action", "completed_by", "completed_at", "expected_due_on"}));
}

}  // namespace
}  // namespace hotel::schedules
