#include "stats/stats_sql.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "common/errors.h"

namespace hotel::stats {
namespace {

using namespace hotel::v1;

TEST(IssueStats, AllTimeReadsOnlyTheRollups) {
  auto query = ParseIssueStats(GetIssueStatsRequest());
  ASSERT_TRUE(query.ok());
  EXPECT_TRUE(IsAllTime(*query));
  db::SqlQuery groups = BuildIssueGroupsSql(*query);
  EXPECT_NE(groups.text.find("FROM issue_counters_current WHERE issues <> 0"), std::string::npos) << groups.text;
  EXPECT_EQ(groups.text.find("FROM issues"), std::string::npos) << groups.text;
  EXPECT_EQ(groups.params, std::vector<std::string>{""});  // all properties
  EXPECT_NE(BuildDurationHistogramSql(*query).text.find("FROM issue_duration_buckets_current"), std::string::npos);
  EXPECT_NE(BuildOpenIssueClockSql(*query).text.find("FROM open_issue_due_days_current"), std::string::npos);
}

IssueStatsQuery Window(std::optional<int64_t> from_seconds, std::optional<int64_t> to_seconds) {
  IssueStatsQuery query;
  if (from_seconds) query.from_micros = *from_seconds * 1000000;
  if (to_seconds) query.to_micros = *to_seconds * 1000000;
  return query;
}

TEST(IssueStats, AWindowSplitsAtUtcMidnights) {
  constexpr int64_t kJan1 = 1735689600, kJan2 = kJan1 + 86400, kFeb1 = 1738368000;
  WindowSplit split = SplitWindow(Window(kJan1 + 6 * 3600, kFeb1 + 3600));
  EXPECT_TRUE(split.whole_days);
  EXPECT_EQ(split.days_from_micros, kJan2 * 1000000);  // the partial Jan 1 is read from issues
  EXPECT_EQ(split.days_to_micros, kFeb1 * 1000000);    // and so is the first hour of Feb 1

  split = SplitWindow(Window(kJan1, kFeb1));  // midnight to midnight: whole days only
  EXPECT_TRUE(split.whole_days);
  EXPECT_EQ(split.days_from_micros, kJan1 * 1000000);
  EXPECT_EQ(split.days_to_micros, kFeb1 * 1000000);

  split = SplitWindow(Window(kJan1 + 3600, std::nullopt));  // open end: every later day
  EXPECT_TRUE(split.whole_days);
  EXPECT_EQ(split.days_from_micros, kJan2 * 1000000);
  EXPECT_FALSE(split.days_to_micros.has_value());

  // Inside one day, or across one midnight without a whole day: the issues alone.
  EXPECT_FALSE(SplitWindow(Window(kJan1 + 3600, kJan1 + 7200)).whole_days);
  EXPECT_FALSE(SplitWindow(Window(kJan1 + 3600, kJan2 + 3600)).whole_days);
}

TEST(IssueStats, AWindowReadsWholeDaysFromDayRollupsAndPartialDaysFromIssues) {
  GetIssueStatsRequest request;
  request.set_property_id("LIS1");
  request.mutable_from()->set_seconds(1735711200);  // 2025-01-01T06:00:00Z
  request.mutable_to()->set_seconds(1738368000);    // 2025-02-01T00:00:00Z
  auto query = ParseIssueStats(request);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_FALSE(IsAllTime(*query));
  for (const db::SqlQuery& sql : {BuildIssueGroupsSql(*query), BuildDurationHistogramSql(*query)}) {
    EXPECT_NE(sql.text.find("_deltas) d\n"), std::string::npos) << sql.text;
    EXPECT_NE(sql.text.find("created_day >= $2::date AND created_day < $3::date"), std::string::npos) << sql.text;
    EXPECT_NE(sql.text.find("i.created_at >= $4::timestamptz AND i.created_at < $5::timestamptz"), std::string::npos)
        << sql.text;
    EXPECT_EQ(sql.params, (std::vector<std::string>{
                              "LIS1", "2025-01-02", "2025-02-01",  // the whole days from the rollups
                              "2025-01-01 06:00:00.000000+00",
                              "2025-01-02 00:00:00.000000+00",  // the partial first day from the issues
                              "2025-02-01 00:00:00.000000+00",
                              "2025-02-01 00:00:00.000000+00",  // the last day is whole: an empty range
                          }));
  }
  db::SqlQuery clock = BuildOpenIssueClockSql(*query);
  EXPECT_EQ(clock.params,
            (std::vector<std::string>{"LIS1", "2025-01-01 06:00:00.000000+00", "2025-02-01 00:00:00.000000+00"}));
  // A window counts the open issues not yet due; overdue is the rest of its open issues.
  EXPECT_NE(clock.text.find("i.resolve_by >= now()"), std::string::npos) << clock.text;
  EXPECT_EQ(OverdueFromClock(*query, 3, 10), 7);
  EXPECT_EQ(OverdueFromClock(IssueStatsQuery(), 3, 10), 3);  // all time counts overdue directly
}

IssueGroup Group(const char* status, const char* priority, const char* category, const char* property, int count) {
  IssueGroup g;
  g.status = status;
  g.priority = priority;
  g.category = category;
  g.property_id = property;
  g.count = count;
  return g;
}

TEST(IssueStats, GroupsRollUpIntoEveryFigure) {
  std::vector<IssueGroup> groups;
  IssueGroup open = Group("OPEN", "HIGH", "HVAC", "BER1", 3);
  open.past_resolve_by = 2;
  open.responded = 0;
  open.age_seconds_sum = 3000;
  open.age_seconds_max = 1500;
  groups.push_back(open);
  IssueGroup held = Group("ON_HOLD", "LOW", "HVAC", "LIS1", 1);
  held.past_resolve_by = 1;
  held.responded = 1;
  held.response_seconds_sum = 600;
  held.age_seconds_sum = 9000;
  held.age_seconds_max = 9000;
  groups.push_back(held);
  IssueGroup resolved = Group("RESOLVED", "HIGH", "PLUMBING", "BER1", 4);
  resolved.past_resolve_by = 4;  // not overdue: no longer open
  resolved.resolved = 4;
  resolved.resolve_seconds_sum = 4 * 3600;
  resolved.responded = 4;
  resolved.response_seconds_sum = 4 * 60;
  resolved.age_seconds_sum = 1e9;  // ignored: ages are of open issues only
  resolved.age_seconds_max = 1e9;
  groups.push_back(resolved);

  IssueStats stats;
  IssueStatsFromGroups(groups, &stats);
  EXPECT_EQ(stats.total(), 8);
  EXPECT_EQ(stats.by_status().at("OPEN"), 3);
  EXPECT_EQ(stats.by_status().at("CLOSED"), 0);
  EXPECT_EQ(stats.by_status().size(), 6u);
  EXPECT_EQ(stats.by_priority().at("HIGH"), 7);
  EXPECT_EQ(stats.by_priority().at("URGENT"), 0);
  EXPECT_EQ(stats.by_category().at("HVAC"), 4);
  EXPECT_EQ(stats.by_category().size(), 10u);
  EXPECT_EQ(stats.by_property().at("BER1"), 7);
  EXPECT_EQ(stats.by_property().size(), 2u);
  EXPECT_EQ(stats.open_count(), 4);
  EXPECT_EQ(stats.overdue_count(), 3);
  EXPECT_EQ(stats.open_by_priority().at("HIGH"), 3);
  EXPECT_EQ(stats.open_by_priority().at("LOW"), 1);
  EXPECT_EQ(stats.resolved_count(), 4);
  EXPECT_DOUBLE_EQ(stats.mean_time_to_resolve_seconds(), 3600);
  EXPECT_EQ(stats.responded_count(), 5);
  EXPECT_DOUBLE_EQ(stats.mean_time_to_first_response_seconds(), (600 + 240) / 5.0);
  EXPECT_DOUBLE_EQ(stats.mean_open_age_seconds(), 12000 / 4.0);
  EXPECT_DOUBLE_EQ(stats.max_open_age_seconds(), 9000);
}

TEST(IssueStats, NoIssuesGiveZerosNotNaN) {
  IssueStats stats;
  IssueStatsFromGroups({}, &stats);
  EXPECT_EQ(stats.total(), 0);
  EXPECT_EQ(stats.mean_time_to_resolve_seconds(), 0);
  EXPECT_EQ(stats.mean_open_age_seconds(), 0);
  EXPECT_EQ(stats.by_priority().size(), 4u);
  EXPECT_TRUE(stats.by_property().empty());
}

TEST(IssueStats, BadWindowAndProperty) {
  GetIssueStatsRequest request;
  request.set_property_id("lisbon");
  request.mutable_from()->set_seconds(1738368000);
  request.mutable_to()->set_seconds(1735689600);
  EXPECT_EQ(ViolatedFields(ParseIssueStats(request).status()), (std::vector<std::string>{"property_id", "from"}));
  GetIssueStatsRequest ancient;
  ancient.mutable_to()->set_seconds(5);
  EXPECT_EQ(ViolatedFields(ParseIssueStats(ancient).status()), std::vector<std::string>{"to"});
}

TEST(ZeroFill, EveryValueButUnspecified) {
  google::protobuf::Map<std::string, int32_t> counts;
  counts["OPEN"] = 3;
  ZeroFill(Issue::Status_descriptor(), &counts);
  EXPECT_EQ(counts.size(), 6u);
  EXPECT_EQ(counts["OPEN"], 3);
  EXPECT_EQ(counts["CANCELLED"], 0);
  EXPECT_EQ(counts.count("STATUS_UNSPECIFIED"), 0u);
  google::protobuf::Map<std::string, int32_t> categories;
  ZeroFill(Issue::Category_descriptor(), &categories);
  EXPECT_EQ(categories.size(), 10u);
}

TEST(Summary, PropertyFilterIsOneParameterUsedEverywhere) {
  GetSummaryRequest request;
  auto all = ParseSummary(request);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(BuildSummaryTotalsSql(*all).params, std::vector<std::string>{""});  // all properties
  request.set_property_id("BER1");
  auto one = ParseSummary(request);
  db::SqlQuery totals = BuildSummaryTotalsSql(*one);
  EXPECT_EQ(totals.params, std::vector<std::string>{"BER1"});
  EXPECT_NE(totals.text.find("($1 = '' OR d.property_id = $1)"), std::string::npos) << totals.text;
  EXPECT_EQ(totals.text.find("$2"), std::string::npos) << totals.text;
  db::SqlQuery breakdown = BuildSummaryBreakdownSql(*one);
  EXPECT_EQ(breakdown.params, std::vector<std::string>{"BER1"});
  EXPECT_NE(breakdown.text.find("GROUP BY r.floor"), std::string::npos);
  request.set_property_id("ber1");
  EXPECT_EQ(ViolatedFields(ParseSummary(request).status()), std::vector<std::string>{"property_id"});
}

}  // namespace
}  // namespace hotel::stats

namespace hotel::stats {
namespace {

TEST(HistogramMedian, EmptyIsZero) { EXPECT_EQ(HistogramMedian({}), 0); }

TEST(HistogramMedian, FindsTheBucketOfTheMiddleValue) {
  // Buckets 0..2 hold 1, 1, 3 values: the third of five values is in bucket 2.
  double median = HistogramMedian({{0, 1}, {1, 1}, {2, 3}});
  EXPECT_NEAR(median, std::exp(2.5 / kDurationBucketsPerE) - 1, 1e-9);
  // Even count: the lower middle value (second of four) is in bucket 1.
  EXPECT_NEAR(HistogramMedian({{0, 1}, {1, 1}, {7, 2}}), std::exp(1.5 / kDurationBucketsPerE) - 1, 1e-9);
}

TEST(HistogramMedian, IsWithinOnePercentOfTheExactMedian) {
  // Durations from a minute to a month, bucketed as issue_duration_bucket() does in SQL.
  std::vector<double> durations;
  for (int i = 0; i < 2001; ++i) durations.push_back(60.0 * std::pow(1.0053, i));
  std::map<int, int64_t> counts;
  for (double d : durations) ++counts[static_cast<int>(std::floor(std::log1p(d) * kDurationBucketsPerE))];
  std::vector<HistogramBucket> buckets;
  for (const auto& [bucket, count] : counts) buckets.push_back({bucket, count});
  const double exact = durations[1000];
  EXPECT_NEAR(HistogramMedian(buckets), exact, exact * 0.01);
}

TEST(IssueCounters, AllTimeQueriesBindThePropertyOnce) {
  IssueStatsQuery all, lisbon;
  lisbon.property_id = "LIS1";
  EXPECT_EQ(BuildIssueGroupsSql(all).params, std::vector<std::string>{""});
  EXPECT_EQ(BuildIssueGroupsSql(lisbon).params, std::vector<std::string>{"LIS1"});
  db::SqlQuery clock = BuildOpenIssueClockSql(lisbon);
  EXPECT_EQ(clock.params, std::vector<std::string>{"LIS1"});
  EXPECT_NE(clock.text.find("d.property_id = $1"), std::string::npos) << clock.text;
  EXPECT_NE(clock.text.find("i.property_id = $1"), std::string::npos) << clock.text;
  EXPECT_EQ(BuildDurationHistogramSql(all).params, std::vector<std::string>{""});
}

}  // namespace
}  // namespace hotel::stats
