#include "stats/stats_sql.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/time/time.h"
#include "issues/issue_repository.h"
#include "sql/stats.h"

namespace hotel::stats {
namespace {

constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;
constexpr absl::string_view kPast = "-infinity", kFuture = "infinity";

int64_t FloorDay(int64_t micros) { return micros - ((micros % kMicrosPerDay) + kMicrosPerDay) % kMicrosPerDay; }

// A bound of a window as a timestamptz (or a date) parameter; unbounded when unset.
std::string Instant(std::optional<int64_t> micros, absl::string_view unbounded) {
  if (!micros) return std::string(unbounded);
  return absl::FormatTime("%Y-%m-%d %H:%M:%E6S+00", absl::FromUnixMicros(*micros), absl::UTCTimeZone());
}
std::string Day(std::optional<int64_t> micros, absl::string_view unbounded) {
  if (!micros) return std::string(unbounded);
  return absl::FormatTime("%Y-%m-%d", absl::FromUnixMicros(*micros), absl::UTCTimeZone());
}

// The parameters of a window statement: $1 property, $2 $3 its whole days (_whole_days.sql), and
// $4..$7 the two ranges of its partial days (_partial_days.sql).
std::vector<std::string> WindowParams(const IssueStatsQuery& q) {
  const WindowSplit split = SplitWindow(q);
  const std::string none(kFuture);  // an empty range: [infinity, infinity)
  if (!split.whole_days) {
    return {q.property_id, none, none, Instant(q.from_micros, kPast), Instant(q.to_micros, kFuture), none, none};
  }
  std::vector<std::string> params = {q.property_id, Day(split.days_from_micros, kPast),
                                     Day(split.days_to_micros, kFuture)};
  // The part of the first day before the whole days, and of the last one after them.
  for (const auto& [from, to] :
       {std::pair(q.from_micros, split.days_from_micros), std::pair(split.days_to_micros, q.to_micros)}) {
    const bool partial = from && to;
    params.push_back(partial ? Instant(from, kPast) : none);
    params.push_back(partial ? Instant(to, kFuture) : none);
  }
  return params;
}

}  // namespace

bool IsAllTime(const IssueStatsQuery& q) { return !q.from_micros && !q.to_micros; }

WindowSplit SplitWindow(const IssueStatsQuery& q) {
  WindowSplit split;
  if (q.from_micros) {
    const int64_t floor = FloorDay(*q.from_micros);
    split.days_from_micros = floor == *q.from_micros ? floor : floor + kMicrosPerDay;
  }
  if (q.to_micros) split.days_to_micros = FloorDay(*q.to_micros);
  split.whole_days =
      !split.days_from_micros || !split.days_to_micros || *split.days_from_micros < *split.days_to_micros;
  return split;
}

db::SqlQuery PlanEachCall() { return {std::string(sql::stats::kPlanEachCall), {}}; }

db::SqlQuery BuildIssueGroupsSql(const IssueStatsQuery& q) {
  if (IsAllTime(q)) return {std::string(sql::stats::kIssueGroupsAllTime), {q.property_id}};
  return {std::string(sql::stats::kIssueGroupsWindow), WindowParams(q)};
}

db::SqlQuery BuildOpenIssueClockSql(const IssueStatsQuery& q) {
  if (IsAllTime(q)) return {std::string(sql::stats::kOpenIssueClockAllTime), {q.property_id}};
  return {std::string(sql::stats::kOpenIssueClockWindow),
          {q.property_id, Instant(q.from_micros, kPast), Instant(q.to_micros, kFuture)}};
}

int32_t OverdueFromClock(const IssueStatsQuery& q, int32_t clock_count, int32_t open_count) {
  return IsAllTime(q) ? clock_count : open_count - clock_count;
}

db::SqlQuery BuildDurationHistogramSql(const IssueStatsQuery& q) {
  if (IsAllTime(q)) return {std::string(sql::stats::kDurationHistogramAllTime), {q.property_id}};
  return {std::string(sql::stats::kDurationHistogramWindow), WindowParams(q)};
}

double HistogramMedian(const std::vector<HistogramBucket>& buckets) {
  int64_t total = 0;
  for (const auto& b : buckets) total += b.count;
  if (total <= 0) return 0;
  // The lower middle value for an even count, like a median rounded down to a bucket.
  const int64_t middle = (total + 1) / 2;
  int64_t seen = 0;
  for (const auto& b : buckets) {
    seen += b.count;
    if (seen >= middle) return std::exp((b.bucket + 0.5) / kDurationBucketsPerE) - 1;
  }
  return 0;
}

IssueGroup ReadIssueGroup(const pqxx::row& row) {
  namespace col = issue_group_columns;
  IssueGroup g;
  g.status = row[col::kStatus].c_str();
  g.priority = row[col::kPriority].c_str();
  g.category = row[col::kCategory].c_str();
  g.property_id = row[col::kPropertyId].c_str();
  g.count = row[col::kCount].as<int32_t>();
  g.past_resolve_by = row[col::kPastResolveBy].as<int32_t>();
  g.resolved = row[col::kResolved].as<int32_t>();
  g.resolve_seconds_sum = row[col::kResolveSecondsSum].as<double>();
  g.responded = row[col::kResponded].as<int32_t>();
  g.response_seconds_sum = row[col::kResponseSecondsSum].as<double>();
  g.age_seconds_sum = row[col::kAgeSecondsSum].as<double>();
  g.age_seconds_max = row[col::kAgeSecondsMax].as<double>();
  return g;
}

void IssueStatsFromGroups(const std::vector<IssueGroup>& groups, hotel::v1::IssueStats* out) {
  ZeroFill(hotel::v1::Issue::Status_descriptor(), out->mutable_by_status());
  ZeroFill(hotel::v1::Issue::Priority_descriptor(), out->mutable_by_priority());
  ZeroFill(hotel::v1::Issue::Category_descriptor(), out->mutable_by_category());
  ZeroFill(hotel::v1::Issue::Priority_descriptor(), out->mutable_open_by_priority());
  int64_t total = 0, open = 0, overdue = 0, resolved = 0, responded = 0;
  double resolve_sum = 0, response_sum = 0, age_sum = 0, age_max = 0;
  for (const auto& g : groups) {
    total += g.count;
    (*out->mutable_by_status())[g.status] += g.count;
    (*out->mutable_by_priority())[g.priority] += g.count;
    (*out->mutable_by_category())[g.category] += g.count;
    (*out->mutable_by_property())[g.property_id] += g.count;
    resolved += g.resolved;
    resolve_sum += g.resolve_seconds_sum;
    responded += g.responded;
    response_sum += g.response_seconds_sum;
    if (issues::IsOpenStatus(db::ParseEnum<hotel::v1::Issue::Status>(g.status))) {
      open += g.count;
      overdue += g.past_resolve_by;
      (*out->mutable_open_by_priority())[g.priority] += g.count;
      age_sum += g.age_seconds_sum;
      age_max = std::max(age_max, g.age_seconds_max);
    }
  }
  out->set_total(static_cast<int32_t>(total));
  out->set_open_count(static_cast<int32_t>(open));
  out->set_overdue_count(static_cast<int32_t>(overdue));
  out->set_resolved_count(static_cast<int32_t>(resolved));
  out->set_mean_time_to_resolve_seconds(resolved > 0 ? resolve_sum / resolved : 0);
  out->set_responded_count(static_cast<int32_t>(responded));
  out->set_mean_time_to_first_response_seconds(responded > 0 ? response_sum / responded : 0);
  out->set_mean_open_age_seconds(open > 0 ? age_sum / open : 0);
  out->set_max_open_age_seconds(age_max);
}

void ZeroFill(const google::protobuf::EnumDescriptor* descriptor, google::protobuf::Map<std::string, int32_t>* counts) {
  for (int i = 0; i < descriptor->value_count(); ++i) {
    if (descriptor->value(i)->number() != 0) (*counts)[descriptor->value(i)->name()] += 0;
  }
}

db::SqlQuery BuildSummaryTotalsSql(const SummaryQuery& q) {
  return {std::string(sql::stats::kSummaryTotals), {q.property_id}};
}

db::SqlQuery BuildSummaryBreakdownSql(const SummaryQuery& q) {
  return {std::string(sql::stats::kSummaryBreakdown), {q.property_id}};
}

}  // namespace hotel::stats
