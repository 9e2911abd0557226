// Issue statistics and the dashboard summary: which statement of stats/sql/ computes the figures
// in PostgreSQL (rollups, per-day rollups and partial days) with which parameters, and the pure
// functions that turn its rows into the response. Pure, unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "db/sql.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/map.h"
#include "hotel/v1/maintenance.pb.h"
#include "stats/stats_request.h"

namespace hotel::stats {

// A window is split at UTC midnights: the whole days inside it are read from the per-day rollups
// (migration 0009), only the partial days at its ends from the issues themselves.
struct WindowSplit {
  bool whole_days = false;                  // false: the window is read from the issues alone
  std::optional<int64_t> days_from_micros;  // first whole day (unset: unbounded)
  std::optional<int64_t> days_to_micros;    // end of the last whole day (unset: unbounded)
};
WindowSplit SplitWindow(const IssueStatsQuery& query);
bool IsAllTime(const IssueStatsQuery& query);

// For the transaction it runs in: every statement planned for its parameters (plan_each_call.sql),
// which the property filter ($1 = '' OR property_id = $1) of the statements below needs.
db::SqlQuery PlanEachCall();

// Issue groups by (status, priority, category, property): the columns of IssueGroup in order,
// with past_resolve_by and the max age 0 (BuildOpenIssueClockSql has them). All time reads the
// rollups that triggers keep; a window adds its whole days from the per-day rollups to its
// partial days counted from the issues. A few hundred rows at most.
db::SqlQuery BuildIssueGroupsSql(const IssueStatsQuery& query);
// The columns of BuildIssueGroupsSql, in the order of IssueGroup.
namespace issue_group_columns {
enum : int {
  kStatus,
  kPriority,
  kCategory,
  kPropertyId,
  kCount,
  kPastResolveBy,
  kResolved,
  kResolveSecondsSum,
  kResponded,
  kResponseSecondsSum,
  kAgeSecondsSum,
  kAgeSecondsMax,
  kColumnCount
};
}  // namespace issue_group_columns
// One row for the open issues of the query: all time, the open issues past resolve_by now; a
// window, the open issues NOT yet due (see OverdueFromClock); then the age in seconds of the
// oldest open issue (0 if none), now (microseconds).
db::SqlQuery BuildOpenIssueClockSql(const IssueStatsQuery& query);
// Its columns, in order.
namespace open_issue_clock_columns {
enum : int { kCount, kMaxOpenAgeSeconds, kNowMicros };
}  // namespace open_issue_clock_columns
// The overdue count from the count of BuildOpenIssueClockSql and the open count of the groups.
int32_t OverdueFromClock(const IssueStatsQuery& query, int32_t clock_count, int32_t open_count);
// Rows (kind "resolve" or "response", bucket, issues) of the duration histograms, by bucket.
db::SqlQuery BuildDurationHistogramSql(const IssueStatsQuery& query);
namespace histogram_columns {
enum : int { kKind, kBucket, kIssues };
}  // namespace histogram_columns

// Buckets per factor e of the duration histograms; must match issue_duration_bucket() in SQL.
inline constexpr double kDurationBucketsPerE = 50;
struct HistogramBucket {
  int bucket = 0;
  int64_t count = 0;
};
// The median of a histogram sorted by bucket: the geometric middle of the bucket holding the
// middle value, so within 1 % of the exact median. 0 for an empty histogram.
double HistogramMedian(const std::vector<HistogramBucket>& buckets);

// One row of BuildIssueGroupsSql.
struct IssueGroup {
  std::string status;
  std::string priority;
  std::string category;
  std::string property_id;
  int32_t count = 0;
  int32_t past_resolve_by = 0;  // issues whose resolve_by has passed (overdue if open)
  int32_t resolved = 0;
  double resolve_seconds_sum = 0;
  int32_t responded = 0;
  double response_seconds_sum = 0;
  double age_seconds_sum = 0;
  double age_seconds_max = 0;
};

// Fills every figure of IssueStats except the medians and computed_at: zero-filled maps by
// status, priority, category (and by property for properties with issues), open and overdue
// counts, means as sum / count, open-issue age from the open statuses only.
IssueGroup ReadIssueGroup(const pqxx::row& row);
void IssueStatsFromGroups(const std::vector<IssueGroup>& groups, hotel::v1::IssueStats* out);

// Sets every non-zero value name of the enum to 0 in counts, so dashboards see every key.
void ZeroFill(const google::protobuf::EnumDescriptor* descriptor, google::protobuf::Map<std::string, int32_t>* counts);

// One row: properties, enabled properties, room types, rooms, rooms out of order, equipment,
// active schedules, overdue schedules, schedules due this week, open issues, overdue issues, now.
db::SqlQuery BuildSummaryTotalsSql(const SummaryQuery& query);
namespace summary_columns {
enum : int {
  kProperties,
  kEnabledProperties,
  kRoomTypes,
  kRooms,
  kRoomsOutOfOrder,
  kEquipment,
  kActiveSchedules,
  kOverdueSchedules,
  kSchedulesDueThisWeek,
  kOpenIssues,
  kOverdueIssues,
  kNowMicros,
  kColumnCount
};
}  // namespace summary_columns
// Rows (dimension, key, count) for "category", "floor", "equipment", "open_priority".
db::SqlQuery BuildSummaryBreakdownSql(const SummaryQuery& query);
namespace breakdown_columns {
enum : int { kDimension, kKey, kCount };
}  // namespace breakdown_columns

}  // namespace hotel::stats
