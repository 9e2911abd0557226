// The room maintenance overview, issue statistics and the summary against a real PostgreSQL.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "common/errors.h"
#include "equipment/equipment_repository.h"
#include "issues/issue_repository.h"
#include "schedules/schedule_repository.h"
#include "stats/stats_repository.h"
#include "test_database.h"

namespace hotel {
namespace {

// The maintenance areas these tests drive together.
using namespace hotel::equipment;
using namespace hotel::issues;
using namespace hotel::schedules;
using namespace hotel::stats;

using namespace hotel::v1;

int64_t DatabaseNowSeconds() {
  int64_t now = 0;
  auto status = testing::TestDatabase::Get().pool().Run(db::Access::kRead, [&](db::Session& s) {
    pqxx::nontransaction txn(s.connection());
    now = txn.exec1("SELECT extract(epoch FROM now())::int8")[0].as<int64_t>();
    return absl::OkStatus();
  });
  EXPECT_TRUE(status.ok());
  return now;
}

class MaintenanceViewsTest : public ::testing::Test {
 protected:
  MaintenanceViewsTest() : issues_(testing::TestDatabase::Get().pool()), stats_(testing::TestDatabase::Get().pool()) {}

  Issue CreateIssue(const std::string& property, const std::string& room, Issue::Priority priority,
                    Issue::Category category) {
    CreateIssueRequest request;
    request.set_property_id(property);
    request.set_room_number(room);
    request.set_title("Stats issue");
    request.set_category(category);
    request.set_priority(priority);
    request.set_reported_by("it-stats");
    Issue out;
    EXPECT_TRUE(issues_.Create(*ValidateCreateIssue(request), &out).ok());
    return out;
  }

  Issue SetStatus(const Issue& issue, Issue::Status status) {
    Issue patch, out;
    patch.set_status(status);
    EXPECT_TRUE(issues_.Update(issue.id(), patch, {"status"}, "", &out).ok());
    return out;
  }

  IssueRepository issues_;
  StatsRepository stats_;
};

TEST_F(MaintenanceViewsTest, RoomOverviewBringsEverythingTogether) {
  // Seeded room BER1 408: an air conditioner with an open on-hold issue that holds the room.
  RoomMaintenance overview;
  ASSERT_TRUE(stats_.RoomMaintenance("BER1", "408", &overview).ok());
  EXPECT_EQ(overview.room().number(), "408");
  EXPECT_FALSE(overview.room().available());
  EXPECT_EQ(overview.room().equipment_count(), overview.equipment_size());
  EXPECT_GE(overview.equipment_size(), 2);
  EXPECT_GE(overview.schedules_size(), 2);
  for (const auto& s : overview.schedules()) EXPECT_TRUE(s.active());
  ASSERT_GE(overview.open_issues_size(), 1);
  EXPECT_EQ(overview.open_issues(0).status(), Issue::ON_HOLD);
  EXPECT_TRUE(overview.open_issues(0).take_room_out_of_order());
  EXPECT_EQ(overview.open_issues(0).timeline_size(), 0);

  RoomMaintenance history;
  ASSERT_TRUE(stats_.RoomMaintenance("BER1", "410", &history).ok());
  ASSERT_GE(history.recent_issues_size(), 1);
  EXPECT_EQ(history.recent_issues(0).status(), Issue::CLOSED);

  EXPECT_EQ(ErrorReason(stats_.RoomMaintenance("BER1", "999", &overview)), "ROOM_NOT_FOUND");
  EXPECT_EQ(ErrorReason(stats_.RoomMaintenance("XX1", "101", &overview)), "PROPERTY_NOT_FOUND");
}

TEST_F(MaintenanceViewsTest, IssueStatsOverAWindow) {
  // A property of its own, so issues of other tests never count; removed again at the end so
  // that tests counting properties and rooms keep their numbers.
  struct DropTestProperty {
    ~DropTestProperty() {
      testing::TestDatabase::Get().Exec(
          "DELETE FROM issue_events WHERE issue_id IN (SELECT id FROM issues WHERE property_id = 'ITS1');"
          "DELETE FROM issues WHERE property_id = 'ITS1'; DELETE FROM rooms WHERE property_id = 'ITS1';"
          "DELETE FROM room_types WHERE property_id = 'ITS1'; DELETE FROM properties WHERE id = 'ITS1'");
    }
  } drop_test_property;
  testing::TestDatabase::Get().Exec(
      "INSERT INTO properties (id, name, time_zone, city, country_code) VALUES"
      " ('ITS1', 'Stats test', 'Europe/Lisbon', 'Porto', 'PT') ON CONFLICT DO NOTHING;"
      "INSERT INTO room_types (id, property_id, code, name, category, size_sqm, max_guests, bed_type) VALUES"
      " ('ITS1-STD', 'ITS1', 'STD', 'Standard', 'STANDARD', 20, 2, 'DOUBLE') ON CONFLICT DO NOTHING;"
      "INSERT INTO rooms (property_id, number, floor, room_type_id) VALUES"
      " ('ITS1', '101', 1, 'ITS1-STD'), ('ITS1', '102', 1, 'ITS1-STD') ON CONFLICT DO NOTHING");
  const int64_t start = DatabaseNowSeconds() - 1;
  Issue urgent = CreateIssue("ITS1", "101", Issue::URGENT, Issue::SAFETY);
  Issue low = CreateIssue("ITS1", "102", Issue::LOW, Issue::OTHER);
  CreateIssue("ITS1", "101", Issue::MEDIUM, Issue::HVAC);
  SetStatus(SetStatus(urgent, Issue::IN_PROGRESS), Issue::RESOLVED);
  Issue comment, ignored;
  comment.set_comment("Looking into it");
  ASSERT_TRUE(issues_.Update(low.id(), comment, {"comment"}, "", &ignored).ok());

  GetIssueStatsRequest request;
  request.set_property_id("ITS1");
  request.mutable_from()->set_seconds(start);
  auto query = ParseIssueStats(request);
  ASSERT_TRUE(query.ok());
  IssueStats stats;
  ASSERT_TRUE(stats_.IssueStats(*query, &stats).ok());
  EXPECT_EQ(stats.total(), 3);
  EXPECT_EQ(stats.by_status().at("RESOLVED"), 1);
  EXPECT_EQ(stats.by_status().at("OPEN"), 2);
  EXPECT_EQ(stats.by_status().at("CLOSED"), 0);
  EXPECT_EQ(stats.by_priority().at("URGENT"), 1);
  EXPECT_EQ(stats.by_category().at("HVAC"), 1);
  EXPECT_EQ(stats.by_category().at("PLUMBING"), 0);
  EXPECT_EQ(stats.by_property().size(), 1u);
  EXPECT_EQ(stats.by_property().at("ITS1"), 3);
  EXPECT_EQ(stats.open_count(), 2);
  EXPECT_EQ(stats.overdue_count(), 0);
  EXPECT_EQ(stats.resolved_count(), 1);
  EXPECT_GE(stats.mean_time_to_resolve_seconds(), 0);
  EXPECT_EQ(stats.responded_count(), 2);  // the status change and the comment
  EXPECT_EQ(stats.open_by_priority().at("LOW"), 1);
  EXPECT_EQ(stats.open_by_priority().at("MEDIUM"), 1);
  EXPECT_EQ(stats.open_by_priority().at("URGENT"), 0);
  EXPECT_GE(stats.max_open_age_seconds(), stats.mean_open_age_seconds());

  // A window before the issues were created is empty.
  request.mutable_from()->set_seconds(start - 3600);
  request.mutable_to()->set_seconds(start - 1800);
  IssueStats before;
  ASSERT_TRUE(stats_.IssueStats(*ParseIssueStats(request), &before).ok());
  EXPECT_EQ(before.total(), 0);
  EXPECT_EQ(before.mean_time_to_resolve_seconds(), 0);
  EXPECT_EQ(before.by_status().size(), 6u);

  // Seeded issues are older: the whole table shows them, with overdue ones among them.
  IssueStats all;
  ASSERT_TRUE(stats_.IssueStats(*ParseIssueStats(GetIssueStatsRequest()), &all).ok());
  EXPECT_GE(all.total(), 20);
  EXPECT_GE(all.overdue_count(), 1);
  EXPECT_GT(all.median_time_to_resolve_seconds(), 0);
  EXPECT_GT(all.mean_time_to_first_response_seconds(), 0);

  GetIssueStatsRequest unknown;
  unknown.set_property_id("XX1");
  EXPECT_EQ(ErrorReason(stats_.IssueStats(*ParseIssueStats(unknown), &all)), "PROPERTY_NOT_FOUND");
}

TEST_F(MaintenanceViewsTest, SummaryCountsMatchTheTables) {
  Summary summary;
  ASSERT_TRUE(stats_.Summary(*ParseSummary(GetSummaryRequest()), &summary).ok());
  EXPECT_GE(summary.properties(), 2);
  EXPECT_GE(summary.room_types(), 11);
  EXPECT_GE(summary.rooms().total(), 74);
  EXPECT_EQ(summary.rooms().available() + summary.rooms().out_of_order(), summary.rooms().total());
  int by_floor = 0, by_category = 0;
  for (const auto& [floor, count] : summary.rooms().by_floor()) by_floor += count;
  for (const auto& [category, count] : summary.rooms().by_category()) by_category += count;
  EXPECT_EQ(by_floor, summary.rooms().total());
  EXPECT_EQ(by_category, summary.rooms().total());
  EXPECT_EQ(summary.rooms().by_floor().at(0), 6);  // LIS1's ground floor
  int equipment = 0;
  for (const auto& [status, count] : summary.equipment().by_status()) equipment += count;
  EXPECT_EQ(equipment, summary.equipment().total());
  EXPECT_GE(summary.equipment().by_status().at("DOWN"), 2);
  EXPECT_GE(summary.schedules().overdue(), 1);
  EXPECT_LE(summary.schedules().overdue(), summary.schedules().active());
  int open = 0;
  for (const auto& [priority, count] : summary.issues().open_by_priority()) open += count;
  EXPECT_EQ(open, summary.issues().open());
  EXPECT_GT(summary.computed_at().seconds(), 1700000000);

  GetSummaryRequest lisbon;
  lisbon.set_property_id("LIS1");
  Summary one;
  ASSERT_TRUE(stats_.Summary(*ParseSummary(lisbon), &one).ok());
  EXPECT_EQ(one.properties(), 1);
  EXPECT_EQ(one.rooms().total(), 24);
  EXPECT_EQ(one.room_types(), 5);
}

}  // namespace
}  // namespace hotel
