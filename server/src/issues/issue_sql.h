// The statements that read issues and their timeline events, and the row readers beside them.
#pragma once

#include <cstdint>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "db/sql.h"
#include "db/timestamps.h"
#include "google/protobuf/timestamp.pb.h"
#include "hotel/v1/maintenance.pb.h"
#include "issues/issue_request.h"

namespace hotel::issues {

// The columns of issues/sql/_issue_event_columns.sql, in order: readers use these names, never
// numbers (sql_columns_test checks the order against the file).
namespace issue_event_columns {
enum : int { kId, kAtMicros, kActor, kType, kFromValue, kToValue, kNote, kField, kCount };
}  // namespace issue_event_columns
// The columns of issues/sql/_issue_columns.sql, in order: readers and page keys use these names,
// never numbers (sql_columns_test checks the order against the file).
namespace issue_columns {
enum : int {
  kId,
  kPropertyId,
  kRoomNumber,
  kEquipmentId,
  kTitle,
  kDescription,
  kCategory,
  kPriority,
  kStatus,
  kStatusReason,
  kReportedBy,
  kAssignee,
  kTakeRoomOutOfOrder,
  kCreatedAtMicros,
  kUpdatedAtMicros,
  kResolvedAtMicros,
  kFirstResponseAtMicros,
  kResolveByMicros,
  kOverdue,
  kUpdatedBy,
  kVersion,
  kReturnCondition,
  kCount
};
}  // namespace issue_columns

// The number of issue columns (issues/sql/_issue_columns.sql), before the event's in a joined row.
inline constexpr int kIssueColumnCount = issue_columns::kCount;
// Fills every stored field plus etag and allowed_transitions (not the timeline).
void ReadIssue(const pqxx::row& row, hotel::v1::Issue* out);

// Reads the event columns starting at column first (after an issue's columns in a joined row).
void ReadIssueEvent(const pqxx::row& row, hotel::v1::IssueEvent* out, int first = 0);

// The etag of an issue version: opaque, stable across processes.
std::string IssueEtag(absl::string_view id, int64_t version);

// Each list statement fetches page_size + 1 rows: the extra row only tells that a next page exists.
db::SqlQuery BuildListIssuesSql(const IssueListQuery& query);

// The page-token key of a listed row: created_at (micros), id.
std::vector<std::string> IssuePageKey(const pqxx::row& row);

}  // namespace hotel::issues
