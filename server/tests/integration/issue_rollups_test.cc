// The rollups that keep issue statistics fast (migrations 0007 and 0009) against a real
// PostgreSQL: after many kinds of writes, also concurrent ones, before and after the deltas are
// folded, all-time and windowed statistics equal a recount over the issues themselves.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <thread>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "equipment/equipment_repository.h"
#include "issues/issue_repository.h"
#include "schedules/schedule_repository.h"
#include "stats/rollup_folder.h"
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

  IssueStats Stats(const std::string& property, std::optional<int64_t> from = {}, std::optional<int64_t> to = {}) {
    GetIssueStatsRequest request;
    request.set_property_id(property);
    if (from) request.mutable_from()->set_seconds(*from);
    if (to) request.mutable_to()->set_seconds(*to);
    IssueStats out;
    auto status = stats_.IssueStats(*ParseIssueStats(request), &out);
    EXPECT_TRUE(status.ok()) << status;
    return out;
  }

  // The same figures counted from the issues table alone, with exact medians.
  IssueStats Recount(const std::string& property, std::optional<int64_t> from = {}, std::optional<int64_t> to = {}) {
    IssueStats out;
    auto status = testing::TestDatabase::Get().pool().Run(db::Access::kRead, [&](db::Session& session) {
      pqxx::nontransaction txn(session.connection());
      const std::string where =
          "FROM issues WHERE ($1 = '' OR property_id = $1) AND created_at >= to_timestamp($2::float8)"
          " AND created_at < to_timestamp($3::float8)";
      const std::string open = "status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD')";
      const auto bounds = std::make_tuple(property, from.value_or(946684800), to.value_or(32503680000));
      auto row = txn.exec_params1(
          absl::StrCat(
              "SELECT count(*), count(*) FILTER (WHERE ", open, "), count(*) FILTER (WHERE ", open,
              " AND resolve_by < now()), count(resolved_at), count(first_response_at),"
              " coalesce(avg(date_part('epoch', resolved_at - created_at)), 0),"
              " coalesce(avg(date_part('epoch', first_response_at - created_at)), 0),"
              " coalesce(avg(date_part('epoch', now() - created_at)) FILTER (WHERE ",
              open,
              "), 0),"
              " coalesce(max(date_part('epoch', now() - created_at)) FILTER (WHERE ",
              open,
              "), 0),"
              " coalesce(percentile_disc(0.5) WITHIN GROUP (ORDER BY date_part('epoch', resolved_at - created_at)), 0),"
              " coalesce(percentile_disc(0.5) WITHIN GROUP (ORDER BY date_part('epoch', first_response_at - "
              "created_at)), 0) ",
              where),
          std::get<0>(bounds), std::get<1>(bounds), std::get<2>(bounds));
      out.set_total(row[0].as<int>());
      out.set_open_count(row[1].as<int>());
      out.set_overdue_count(row[2].as<int>());
      out.set_resolved_count(row[3].as<int>());
      out.set_responded_count(row[4].as<int>());
      out.set_mean_time_to_resolve_seconds(row[5].as<double>());
      out.set_mean_time_to_first_response_seconds(row[6].as<double>());
      out.set_mean_open_age_seconds(row[7].as<double>());
      out.set_max_open_age_seconds(row[8].as<double>());
      out.set_median_time_to_resolve_seconds(row[9].as<double>());
      out.set_median_time_to_first_response_seconds(row[10].as<double>());
      ZeroFill(Issue::Status_descriptor(), out.mutable_by_status());
      ZeroFill(Issue::Priority_descriptor(), out.mutable_by_priority());
      ZeroFill(Issue::Category_descriptor(), out.mutable_by_category());
      ZeroFill(Issue::Priority_descriptor(), out.mutable_open_by_priority());
      auto groups = txn.exec_params(
          absl::StrCat("SELECT 'status', status, count(*) ", where, " GROUP BY status UNION ALL SELECT 'priority',",
                       " priority, count(*) ", where, " GROUP BY priority UNION ALL SELECT 'category', category,",
                       " count(*) ", where, " GROUP BY category UNION ALL SELECT 'property', property_id, count(*) ",
                       where, " GROUP BY property_id UNION ALL SELECT 'open', priority, count(*) ", where, " AND ",
                       open, " GROUP BY priority"),
          std::get<0>(bounds), std::get<1>(bounds), std::get<2>(bounds));
      for (const auto& g : groups) {
        const std::string kind = g[0].c_str();
        auto* counts = kind == "status"     ? out.mutable_by_status()
                       : kind == "priority" ? out.mutable_by_priority()
                       : kind == "category" ? out.mutable_by_category()
                       : kind == "property" ? out.mutable_by_property()
                                            : out.mutable_open_by_priority();
        (*counts)[g[1].c_str()] = g[2].as<int>();
      }
      return absl::OkStatus();
    });
    EXPECT_TRUE(status.ok()) << status;
    return out;
  }

  void ExpectSameStats(const std::string& property, std::optional<int64_t> from = {}, std::optional<int64_t> to = {}) {
    SCOPED_TRACE(absl::StrCat(property.empty() ? "all properties" : property, " from ", from.value_or(0), " to ",
                              to.value_or(0)));
    IssueStats fast = Stats(property, from, to);
    IssueStats exact = Recount(property, from, to);
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
    // The histogram median is within 1 % of the lower middle value (percentile_disc).
    auto near = [](double a, double b) { return std::abs(a - b) <= std::max(2.0, 0.03 * b); };
    EXPECT_TRUE(near(fast.median_time_to_resolve_seconds(), exact.median_time_to_resolve_seconds()))
        << fast.median_time_to_resolve_seconds() << " vs " << exact.median_time_to_resolve_seconds();
    EXPECT_TRUE(near(fast.median_time_to_first_response_seconds(), exact.median_time_to_first_response_seconds()))
        << fast.median_time_to_first_response_seconds() << " vs " << exact.median_time_to_first_response_seconds();
  }

  // All time and windows with partial days at either end, or inside one day, per property.
  void ExpectSameStatsEverywhere() {
    const int64_t now = absl::ToUnixSeconds(absl::Now());
    for (const std::string property : {"", "BER1", "LIS1"}) {
      ExpectSameStats(property);
      ExpectSameStats(property, now - 30 * 86400 - 4000, {});
      ExpectSameStats(property, now - 400 * 86400 + 7000, now - 20 * 86400 + 3000);
      ExpectSameStats(property, {}, now - 100 * 86400 - 5000);
      ExpectSameStats(property, now - 3 * 86400 - 20000, now - 3 * 86400 - 100);
    }
  }

  int64_t Fold() {
    auto moved = RollupFolder(testing::TestDatabase::Get().pool(), absl::Seconds(1)).FoldOnce();
    EXPECT_TRUE(moved.ok()) << moved.status();
    return moved.value_or(0);
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
  db.Exec(
      "UPDATE issues SET status = 'CLOSED' WHERE reported_by = 'bulk' AND status = 'RESOLVED' AND title LIKE 'bulk "
      "1%'");
  db.Exec("UPDATE issues SET title = title || ' (edited)' WHERE reported_by = 'bulk' AND title LIKE 'bulk 2%'");
  db.Exec(
      "UPDATE issues SET priority = 'URGENT', resolve_by = now() + interval '1 hour'"
      " WHERE reported_by = 'bulk' AND status = 'OPEN' AND title LIKE 'bulk 3%'");
  db.Exec("DELETE FROM issue_events WHERE issue_id IN (SELECT id FROM issues WHERE title LIKE 'bulk 4%')");
  db.Exec("DELETE FROM issues WHERE reported_by = 'bulk' AND title LIKE 'bulk 4%'");
  // Overdue since earlier today: counted by the exact part of the overdue figure.
  db.Exec(
      "UPDATE issues SET resolve_by = greatest(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',"
      " now() - interval '1 minute') WHERE reported_by = 'bulk' AND status = 'OPEN' AND title LIKE 'bulk 5%'");

  // Before the fold the figures add the deltas; after it they read the rollups alone.
  ExpectSameStatsEverywhere();
  EXPECT_GT(Fold(), 6000);
  ExpectSameStatsEverywhere();

  // The summary's open and overdue counts read the same rollups.
  Summary summary;
  ASSERT_TRUE(stats_.Summary(*ParseSummary(GetSummaryRequest()), &summary).ok());
  IssueStats exact = Recount("");
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
        " EXCEPT SELECT property_id, status, priority, category, issues FROM issue_counters_current WHERE issues <> 0");
    for (const auto& row : rows) mismatches += absl::StrCat(row[0].c_str(), "/", row[1].c_str(), " ");
    return absl::OkStatus();
  });
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(mismatches, "");
  ExpectSameStats("");
  Fold();
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
}  // namespace hotel
