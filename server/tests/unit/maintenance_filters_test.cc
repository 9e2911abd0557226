#include "maintenance/maintenance_filters.h"

#include <gtest/gtest.h>

#include "api/idempotency.h"
#include "api/request_fields.h"
#include "common/errors.h"
#include "common/page_token.h"

namespace hotel::maintenance {
namespace {

using namespace hotel::v1;

CreateIssueRequest GoodIssue() {
  CreateIssueRequest request;
  request.set_property_id("BER1");
  request.set_room_number("101");
  request.set_title("  Leaking tap ");
  request.set_category(Issue::PLUMBING);
  request.set_reported_by("Anna");
  return request;
}

TEST(CreateIssue, DefaultsAndTrimming) {
  auto issue = ValidateCreateIssue(GoodIssue());
  ASSERT_TRUE(issue.ok()) << issue.status();
  EXPECT_EQ(issue->title, "Leaking tap");
  EXPECT_EQ(issue->priority, "MEDIUM");
  EXPECT_EQ(issue->category, "PLUMBING");
  EXPECT_EQ(issue->resolution_target_seconds, 72 * 3600);
  EXPECT_FALSE(issue->request_hash.empty());
}

TEST(CreateIssue, EveryBadFieldIsNamed) {
  CreateIssueRequest request = GoodIssue();
  request.set_title("");
  request.set_category(static_cast<Issue::Category>(77));
  request.set_priority(static_cast<Issue::Priority>(9));
  request.set_reported_by("");
  request.set_equipment_id("abc");
  request.set_request_id("has spaces");
  request.set_room_number("1 01");
  EXPECT_EQ(ViolatedFields(ValidateCreateIssue(request).status()),
            (std::vector<std::string>{"room_number", "equipment_id", "title", "category", "priority", "reported_by",
                                      "request_id"}));
  CreateIssueRequest no_category = GoodIssue();
  no_category.clear_category();
  EXPECT_EQ(ViolatedFields(ValidateCreateIssue(no_category).status()), std::vector<std::string>{"category"});
  CreateIssueRequest no_property = GoodIssue();
  no_property.clear_property_id();
  EXPECT_EQ(ErrorReason(ValidateCreateIssue(no_property).status()), "PROPERTY_ID_REQUIRED");
  CreateIssueRequest long_title = GoodIssue();
  long_title.set_title(std::string(201, 'a'));
  EXPECT_EQ(ViolatedFields(ValidateCreateIssue(long_title).status()), std::vector<std::string>{"title"});
}

TEST(RequestFingerprint, SameRequestSameFingerprint) {
  CreateIssueRequest a = GoodIssue(), b = GoodIssue();
  a.set_request_id("r-1");
  b.set_request_id("r-1");
  EXPECT_EQ(api::RequestFingerprint(a), api::RequestFingerprint(b));
  b.set_title("Other");
  EXPECT_NE(api::RequestFingerprint(a), api::RequestFingerprint(b));
}

TEST(ListIssues, FiltersBecomeParametersNewestFirst) {
  ListIssuesRequest request;
  request.set_status(Issue::OPEN);
  request.set_priority(Issue::HIGH);
  request.set_category(Issue::HVAC);
  request.set_property_id("BER1");
  request.set_room_number("101");
  request.set_page_size(10);
  auto query = ParseListIssues(request);
  ASSERT_TRUE(query.ok()) << query.status();
  db::SqlQuery sql = BuildListIssuesSql(*query);
  EXPECT_NE(sql.text.find("WHERE i.status = $1 AND i.priority = $2 AND i.category = $3 AND i.property_id = $4"
                          " AND i.room_number = $5 ORDER BY i.created_at DESC, i.id DESC LIMIT $6::int"),
            std::string::npos) << sql.text;
  EXPECT_EQ(sql.params, (std::vector<std::string>{"OPEN", "HIGH", "HVAC", "BER1", "101", "11"}));
}

TEST(ListIssues, KeysetTokenContinuesBelowTheLastRowAndIsBoundToTheFilters) {
  ListIssuesRequest request;
  request.set_status(Issue::OPEN);
  auto first = ParseListIssues(request);
  ASSERT_TRUE(first.ok());
  const std::string id = "123e4567-e89b-12d3-a456-426614174000";
  request.set_page_token(EncodePageToken({"issues", Fingerprint(*first), {"1700000000000000", id}}));
  auto next = ParseListIssues(request);
  ASSERT_TRUE(next.ok()) << next.status();
  db::SqlQuery sql = BuildListIssuesSql(*next);
  EXPECT_NE(sql.text.find("(i.created_at, i.id) < (('epoch'::timestamptz + $2::int8 * interval '1 microsecond'), "
                          "$3::uuid)"),
            std::string::npos) << sql.text;
  EXPECT_EQ(sql.params, (std::vector<std::string>{"OPEN", "1700000000000000", id, "51"}));

  request.set_status(Issue::RESOLVED);  // other filters
  EXPECT_EQ(ViolatedFields(ParseListIssues(request).status()), std::vector<std::string>{"page_token"});
  ListIssuesRequest forged;
  auto plain = ParseListIssues(forged);
  forged.set_page_token(EncodePageToken({"issues", Fingerprint(*plain), {"yesterday", id}}));
  EXPECT_EQ(ErrorReason(ParseListIssues(forged).status()), "INVALID_PAGE_TOKEN");
  forged.set_page_token(EncodePageToken({"rooms", Fingerprint(*plain), {"1", id}}));
  EXPECT_EQ(ErrorReason(ParseListIssues(forged).status()), "INVALID_PAGE_TOKEN");
}

TEST(ListIssues, BadFilters) {
  ListIssuesRequest request;
  request.set_status(static_cast<Issue::Status>(42));
  request.set_category(static_cast<Issue::Category>(42));
  request.set_page_size(-1);
  EXPECT_EQ(ViolatedFields(ParseListIssues(request).status()), (std::vector<std::string>{"status", "category", "page_size"}));
  ListIssuesRequest room_only;
  room_only.set_room_number("101");
  EXPECT_EQ(ErrorReason(ParseListIssues(room_only).status()), "PROPERTY_ID_REQUIRED");
  ListIssuesRequest big;
  big.set_page_size(10000);
  EXPECT_EQ(ParseListIssues(big)->page_size, 500);
}

TEST(ListSchedules, OverdueIsComputedInThePropertysTimeZone) {
  ListSchedulesRequest request;
  request.set_overdue(true);
  request.set_property_id("LIS1");
  auto query = ParseListSchedules(request);
  ASSERT_TRUE(query.ok()) << query.status();
  db::SqlQuery sql = BuildListSchedulesSql(*query);
  EXPECT_NE(sql.text.find("(s.active AND s.next_due_on < (now() AT TIME ZONE p.time_zone)::date) = $2::bool"),
            std::string::npos) << sql.text;
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

TEST(CreateEquipment, ValidationAndDefaults) {
  CreateEquipmentRequest request;
  request.set_property_id("LIS1");
  request.set_number("G01");
  request.set_name("Air conditioner");
  request.set_type("air_conditioner");
  request.set_installed_on("2024-05-01");
  request.set_warranty_expires_on("2029-04-30");
  auto equipment = ValidateCreateEquipment(request);
  ASSERT_TRUE(equipment.ok()) << equipment.status();
  EXPECT_EQ(equipment->status, "OPERATIONAL");
  EXPECT_EQ(equipment->room_number, "G01");

  request.set_type("Air Conditioner");
  request.set_warranty_expires_on("2020-01-01");
  request.set_status(static_cast<Equipment::Status>(8));
  request.set_name("");
  EXPECT_EQ(ViolatedFields(ValidateCreateEquipment(request).status()),
            (std::vector<std::string>{"name", "type", "warranty_expires_on", "status"}));
  request.clear_property_id();
  EXPECT_EQ(ErrorReason(ValidateCreateEquipment(request).status()), "PROPERTY_ID_REQUIRED");
}

TEST(ListEquipment, NeedsTheRoomAndPagesByCreationTime) {
  ListEquipmentRequest request;
  request.set_property_id("BER1");
  request.set_number("101");
  request.set_status(Equipment::DOWN);
  auto query = ParseListEquipment(request);
  ASSERT_TRUE(query.ok()) << query.status();
  db::SqlQuery sql = BuildListEquipmentSql(*query);
  EXPECT_NE(sql.text.find("e.property_id = $1 AND e.room_number = $2 AND e.status = $3 ORDER BY e.created_at, e.id"),
            std::string::npos) << sql.text;
  ListEquipmentRequest no_property;
  no_property.set_number("101");
  EXPECT_EQ(ErrorReason(ParseListEquipment(no_property).status()), "PROPERTY_ID_REQUIRED");
}

TEST(ResolutionTargets, PerPriority) {
  EXPECT_EQ(ResolutionTarget(Issue::URGENT), absl::Hours(4));
  EXPECT_EQ(ResolutionTarget(Issue::HIGH), absl::Hours(24));
  EXPECT_EQ(ResolutionTarget(Issue::MEDIUM), absl::Hours(72));
  EXPECT_EQ(ResolutionTarget(Issue::LOW), absl::Hours(168));
}

}  // namespace
}  // namespace hotel::maintenance
