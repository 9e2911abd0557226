// The rollups that keep all-time issue statistics fast (migration 0007) against a real
// PostgreSQL: after many kinds of writes, also concurrent ones, they give the same figures as the
// exact computation over the issues themselves.
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "maintenance/issue_repository.h"
#include "maintenance/stats_repository.h"
#include "test_database.h"

namespace hotel::maintenance {
namespace {

using namespace hotel::v1;

class IssueRollupsTest : public ::testing::Test {
 protected:
  IssueRollupsTest() : issues_(testing::TestDatabase::Get().pool()), stats_(testing::TestDatabase::Get().pool()) {}

  Issue Create(const std::string& property, const std::string& room, int n) {
    CreateIssueRequest request;
    request.set_property_id(property);
    request.set_room_number(room);
    request.set_title(absl::StrCat("Rollup issue ", n));
    request.set_category(static_cast<Issue::Category>(1 + n % 10));
    request.set_priority(static_cast<Issue::Priority>(1 + n % 4));
    request.set_reported_by("it-rollups");
    Issue out;
    auto status = issues_.Create(*ValidateCreateIssue(request), &out);
    EXPECT_TRUE(status.ok()) << status;
    return out;
  }

  void Move(Issue& issue, Issue::Status status) {
    Issue patch, out;
    patch.set_status(status);
    if (status == Issue::ON_HOLD || status == Issue::CANCELLED) patch.set_reason("waiting for parts");
    std::vector<std::string> mask = {"status"};
    if (!patch.reason().empty()) mask.push_back("reason");
    auto s = issues_.Update(issue.id(), patch, mask, "", &out);
    ASSERT_TRUE(s.ok()) << s;
    issue = out;
  }

  IssueStats Stats(const std::string& property, bool exact) {
    GetIssueStatsRequest request;
    request.set_property_id(property);
    if (exact) {  // a window over all time takes the path that reads every issue
      request.mutable_from()->set_seconds(946684800);
      request.mutable_to()->set_seconds(32503680000);
    }
    IssueStats out;
    auto status = stats_.IssueStats(*ParseIssueStats(request), &out);
    EXPECT_TRUE(status.ok()) << status;
    return out;
  }

  void ExpectSameStats(const std::string& property) {
    SCOPED_TRACE(property.empty() ? "all properties" : property);
    IssueStats fast = Stats(property, false);
    IssueStats exact = Stats(property, true);
    EXPECT_EQ(fast.total(), exact.total());
    EXPECT_EQ(fast.open_count(), exact.open_count());
    EXPECT_EQ(fast.overdue_count(), exact.overdue_count());
    EXPECT_EQ(fast.resolved_count(), exact.resolved_count());
    EXPECT_EQ(fast.responded_count(), exact.responded_count());
    using Counts = const google::protobuf::Map<std::string, int32_t>& (IssueStats::*)() const;
    for (Counts counts : {&IssueStats::by_status, &IssueStats::by_priority, &IssueStats::by_category,
                          &IssueStats::by_property, &IssueStats::open_by_priority}) {
      using Sorted = std::map<std::string, int32_t>;
      EXPECT_EQ(Sorted((fast.*counts)().begin(), (fast.*counts)().end()),
                Sorted((exact.*counts)().begin(), (exact.*counts)().end()));
    }
    EXPECT_NEAR(fast.mean_time_to_resolve_seconds(), exact.mean_time_to_resolve_seconds(), 0.01);
    EXPECT_NEAR(fast.mean_time_to_first_response_seconds(), exact.mean_time_to_first_response_seconds(), 0.01);
    EXPECT_NEAR(fast.mean_open_age_seconds(), exact.mean_open_age_seconds(), 2);
    EXPECT_NEAR(fast.max_open_age_seconds(), exact.max_open_age_seconds(), 2);
    // The histogram median is within 1 % of a bucket; percentile_cont may interpolate.
    auto near = [](double a, double b) { return std::abs(a - b) <= std::max(2.0, 0.03 * b); };
    EXPECT_TRUE(near(fast.median_time_to_resolve_seconds(), exact.median_time_to_resolve_seconds()))
        << fast.median_time_to_resolve_seconds() << " vs " << exact.median_time_to_resolve_seconds();
    EXPECT_TRUE(near(fast.median_time_to_first_response_seconds(), exact.median_time_to_first_response_seconds()))
        << fast.median_time_to_first_response_seconds() << " vs " << exact.median_time_to_first_response_seconds();
  }

  IssueRepository issues_;
  StatsRepository stats_;
};

TEST_F(IssueRollupsTest, AllTimeStatsEqualTheExactComputationAfterEveryKindOfWrite) {
  // Through the API: creates and every kind of transition.
  std::vector<Issue> created;
  for (int n = 0; n < 24; ++n) created.push_back(Create(n % 3 ? "BER1" : "LIS1", n % 3 ? "201" : "G02", n));
  for (size_t i = 0; i < created.size(); ++i) {
    if (i % 4 == 0) Move(created[i], Issue::IN_PROGRESS);
    if (i % 4 == 1) Move(created[i], Issue::RESOLVED);
    if (i % 4 == 2) Move(created[i], Issue::ON_HOLD);
    if (i % 8 == 3) Move(created[i], Issue::CANCELLED);
  }
  // Directly in SQL: a bulk insert spread over two years with durations from minutes to weeks,
  // bulk updates that change keys, one that changes none, and deletes.
  auto& db = testing::TestDatabase::Get();
  db.Exec(
      "INSERT INTO issues (property_id, room_number, title, category, priority, status, reported_by, created_at,"
      " resolved_at, first_response_at, resolve_by)"
      " SELECT 'BER1', '202', 'bulk ' || g, (ARRAY['HVAC','PLUMBING','OTHER'])[1 + g % 3],"
      " (ARRAY['LOW','HIGH'])[1 + g % 2], (ARRAY['OPEN','RESOLVED','CLOSED','IN_PROGRESS'])[1 + g % 4], 'bulk',"
      " now() - g * interval '173 minutes',"
      " CASE WHEN g % 4 IN (1, 2) THEN now() - g * interval '173 minutes' + (g * g % 20000) * interval '1 minute' END,"
      " CASE WHEN g % 4 <> 0 THEN now() - g * interval '173 minutes' + (g % 300) * interval '1 minute' END,"
      " now() - g * interval '173 minutes' + interval '3 days' FROM generate_series(1, 6000) g");
  db.Exec("UPDATE issues SET status = 'CLOSED' WHERE reported_by = 'bulk' AND status = 'RESOLVED' AND title LIKE 'bulk 1%'");
  db.Exec("UPDATE issues SET title = title || ' (edited)' WHERE reported_by = 'bulk' AND title LIKE 'bulk 2%'");
  db.Exec("UPDATE issues SET priority = 'URGENT', resolve_by = now() + interval '1 hour'"
          " WHERE reported_by = 'bulk' AND status = 'OPEN' AND title LIKE 'bulk 3%'");
  db.Exec("DELETE FROM issue_events WHERE issue_id IN (SELECT id FROM issues WHERE title LIKE 'bulk 4%')");
  db.Exec("DELETE FROM issues WHERE reported_by = 'bulk' AND title LIKE 'bulk 4%'");
  // Overdue since earlier today: counted by the exact part of the overdue figure.
  db.Exec("UPDATE issues SET resolve_by = greatest(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',"
          " now() - interval '1 minute') WHERE reported_by = 'bulk' AND status = 'OPEN' AND title LIKE 'bulk 5%'");

  ExpectSameStats("");
  ExpectSameStats("BER1");
  ExpectSameStats("LIS1");

  // The summary's open and overdue counts read the same rollups.
  Summary summary;
  ASSERT_TRUE(stats_.Summary(*ParseSummary(GetSummaryRequest()), &summary).ok());
  IssueStats exact = Stats("", true);
  EXPECT_EQ(summary.issues().open(), exact.open_count());
  EXPECT_EQ(summary.issues().overdue(), exact.overdue_count());
  for (const auto& [priority, count] : exact.open_by_priority()) {
    EXPECT_EQ(summary.issues().open_by_priority().at(priority), count) << priority;
  }
}

TEST_F(IssueRollupsTest, ConcurrentWritersLoseNoCount) {
  constexpr int kThreads = 8;
  constexpr int kIssuesEach = 15;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      for (int n = 0; n < kIssuesEach; ++n) {
        Issue issue = Create(t % 2 ? "BER1" : "LIS1", t % 2 ? "301" : "101", t * 100 + n);
        if (n % 3 == 0) Move(issue, Issue::IN_PROGRESS);
        if (n % 3 == 1) Move(issue, Issue::RESOLVED);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::string mismatches;
  auto status = testing::TestDatabase::Get().pool().Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    auto rows = txn.exec(
        "SELECT property_id, status, priority, category, count(*) FROM issues GROUP BY 1, 2, 3, 4"
        " EXCEPT SELECT property_id, status, priority, category, issues FROM issue_counters WHERE issues <> 0");
    for (const auto& row : rows) mismatches += absl::StrCat(row[0].c_str(), "/", row[1].c_str(), " ");
    return absl::OkStatus();
  });
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(mismatches, "");
  ExpectSameStats("");
}

TEST_F(IssueRollupsTest, SummaryScheduleCountsEqualTheSchedules) {
  auto& db = testing::TestDatabase::Get();
  db.Exec(
      "INSERT INTO maintenance_schedules (property_id, room_number, task, interval_unit, interval_count, starts_on,"
      " basis, next_due_on, active) SELECT (ARRAY['BER1','LIS1'])[1 + g % 2], (ARRAY['101','G01'])[1 + g % 2],"
      " 'rollup task ' || g, 'WEEK', 1, current_date - 30, 'SCHEDULED_DATE', current_date - 20 + g % 40, g % 7 <> 0"
      " FROM generate_series(1, 400) g");
  db.Exec("UPDATE maintenance_schedules SET next_due_on = next_due_on + 7 WHERE task LIKE 'rollup task 1%'");
  db.Exec("UPDATE maintenance_schedules SET active = NOT active WHERE task LIKE 'rollup task 2%'");
  db.Exec("DELETE FROM maintenance_schedules WHERE task LIKE 'rollup task 3%'");
  for (const std::string property : {"", "BER1", "LIS1"}) {
    SCOPED_TRACE(property);
    GetSummaryRequest request;
    request.set_property_id(property);
    Summary summary;
    ASSERT_TRUE(stats_.Summary(*ParseSummary(request), &summary).ok());
    int64_t active = 0, overdue = 0, week = 0;
    auto status = db.pool().Run(db::Access::kRead, [&](db::Session& session) {
      pqxx::nontransaction txn(session.connection());
      auto row = txn.exec_params1(
          "SELECT count(*), count(*) FILTER (WHERE s.next_due_on < (now() AT TIME ZONE p.time_zone)::date),"
          " count(*) FILTER (WHERE s.next_due_on BETWEEN (now() AT TIME ZONE p.time_zone)::date"
          " AND (now() AT TIME ZONE p.time_zone)::date + 6)"
          " FROM maintenance_schedules s JOIN properties p ON p.id = s.property_id"
          " WHERE s.active AND ($1 = '' OR s.property_id = $1)",
          property);
      active = row[0].as<int64_t>();
      overdue = row[1].as<int64_t>();
      week = row[2].as<int64_t>();
      return absl::OkStatus();
    });
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_GT(active, 100);
    EXPECT_EQ(summary.schedules().active(), active);
    EXPECT_EQ(summary.schedules().overdue(), overdue);
    EXPECT_EQ(summary.schedules().due_this_week(), week);
  }
}

}  // namespace
}  // namespace hotel::maintenance
