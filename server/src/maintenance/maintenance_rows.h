// Column lists of the maintenance tables and the row mappers that read them by position, shared
// by the maintenance repositories (and their list statements in maintenance_filters).
#pragma once

#include <cstdint>
#include <string>

#include <pqxx/pqxx>

#include "absl/strings/string_view.h"
#include "db/sql.h"
#include "google/protobuf/timestamp.pb.h"
#include "db/timestamps.h"
#include "hotel/v1/maintenance.pb.h"

namespace hotel::maintenance {

// "SELECT <columns> FROM equipment e" — read by ReadEquipment.
extern const absl::string_view kEquipmentSelect;
void ReadEquipment(const pqxx::row& row, hotel::v1::Equipment* out);

// "SELECT <columns> FROM maintenance_schedules s JOIN properties p" — read by ReadSchedule;
// column 14 is created_at in microseconds (keyset), column 15 the property's time zone.
extern const absl::string_view kScheduleSelect;
void ReadSchedule(const pqxx::row& row, hotel::v1::Schedule* out);

// "SELECT <columns> FROM schedule_completions c JOIN maintenance_schedules s" — ReadCompletion.
extern const absl::string_view kCompletionSelect;
void ReadCompletion(const pqxx::row& row, hotel::v1::ScheduleCompletion* out);

// "SELECT <columns> FROM issues i" — read by ReadIssue; column 20 is the version.
extern const absl::string_view kIssueSelect;
// The columns alone (of alias i), kIssueColumnCount of them, for RETURNING and CTEs.
extern const absl::string_view kIssueColumns;
inline constexpr int kIssueColumnCount = 21;
// Fills every stored field plus etag and allowed_transitions (not the timeline).
void ReadIssue(const pqxx::row& row, hotel::v1::Issue* out);
int64_t IssueVersion(const pqxx::row& row);

// "SELECT <columns> FROM issue_events ev" — read by ReadIssueEvent.
extern const absl::string_view kIssueEventSelect;
// The columns alone (of alias ev).
extern const absl::string_view kIssueEventColumns;
// Reads the event columns starting at column first (after an issue's columns in a joined row).
void ReadIssueEvent(const pqxx::row& row, hotel::v1::IssueEvent* out, int first = 0);

// The etag of an issue version: opaque, stable across processes.
std::string IssueEtag(absl::string_view id, int64_t version);

}  // namespace hotel::maintenance
