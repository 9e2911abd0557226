// The readers name columns by enums (issue_columns::kVersion …) kept beside the statements; these
// tests hold each enum to the column list of its sql/_*_columns.sql file, so a column added,
// removed or moved in one place but not the other fails here rather than reading the wrong value.
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "equipment/equipment_sql.h"
#include "gtest/gtest.h"
#include "images/image_sql.h"
#include "issues/issue_sql.h"
#include "schedules/schedule_sql.h"
#include "sql/equipment.h"
#include "sql/images.h"
#include "sql/issues.h"
#include "sql/schedules.h"

namespace hotel {
namespace {

// The output names of a column list or of a "SELECT <columns>\nFROM ..." statement: the alias
// after AS, else the column after the last dot. Commas inside parentheses or quotes do not
// separate columns.
std::vector<std::string> ColumnNames(absl::string_view list) {
  absl::ConsumePrefix(&list, "SELECT ");
  if (const size_t from = list.find("\nFROM "); from != absl::string_view::npos) list = list.substr(0, from);
  std::vector<std::string> names;
  std::string column;
  int depth = 0;
  bool quoted = false;
  auto finish = [&] {
    const size_t as = column.rfind(" AS ");
    std::string name = as != std::string::npos ? column.substr(as + 4) : column.substr(column.rfind('.') + 1);
    name.erase(0, name.find_first_not_of(" \n"));
    name.erase(name.find_last_not_of(" \n") + 1);
    names.push_back(name);
    column.clear();
  };
  for (char c : list) {
    if (c == '\'') quoted = !quoted;
    if (!quoted && c == '(') ++depth;
    if (!quoted && c == ')') --depth;
    if (!quoted && depth == 0 && c == ',') {
      finish();
      continue;
    }
    column += c == '\n' ? ' ' : c;
  }
  finish();
  return names;
}

TEST(SqlColumnsTest, ColumnNamesReadsAliasesAndColumns) {
  EXPECT_EQ(ColumnNames("i.id::text AS id, coalesce(a, 'x,y') AS b,\ni.title"),
            (std::vector<std::string>{"id", "b", "title"}));
  EXPECT_EQ(ColumnNames("SELECT e.id, e.name\nFROM equipment e"), (std::vector<std::string>{"id", "name"}));
}

TEST(SqlColumnsTest, IssueColumns) {
  const auto names = ColumnNames(sql::issues::kIssueColumns);
  ASSERT_EQ(names.size(), static_cast<size_t>(issues::issue_columns::kCount));
  namespace c = issues::issue_columns;
  EXPECT_EQ(names[c::kId], "id");
  EXPECT_EQ(names[c::kPropertyId], "property_id");
  EXPECT_EQ(names[c::kRoomNumber], "room_number");
  EXPECT_EQ(names[c::kEquipmentId], "equipment_id");
  EXPECT_EQ(names[c::kTitle], "title");
  EXPECT_EQ(names[c::kDescription], "description");
  EXPECT_EQ(names[c::kCategory], "category");
  EXPECT_EQ(names[c::kPriority], "priority");
  EXPECT_EQ(names[c::kStatus], "status");
  EXPECT_EQ(names[c::kStatusReason], "status_reason");
  EXPECT_EQ(names[c::kReportedBy], "reported_by");
  EXPECT_EQ(names[c::kAssignee], "assignee");
  EXPECT_EQ(names[c::kTakeRoomOutOfOrder], "take_room_out_of_order");
  EXPECT_EQ(names[c::kCreatedAtMicros], "created_at_micros");
  EXPECT_EQ(names[c::kUpdatedAtMicros], "updated_at_micros");
  EXPECT_EQ(names[c::kResolvedAtMicros], "resolved_at_micros");
  EXPECT_EQ(names[c::kFirstResponseAtMicros], "first_response_at_micros");
  EXPECT_EQ(names[c::kResolveByMicros], "resolve_by_micros");
  EXPECT_EQ(names[c::kOverdue], "overdue");
  EXPECT_EQ(names[c::kUpdatedBy], "updated_by");
  EXPECT_EQ(names[c::kVersion], "version");
}

TEST(SqlColumnsTest, IssueEventColumns) {
  const auto names = ColumnNames(sql::issues::kIssueEventColumns);
  ASSERT_EQ(names.size(), static_cast<size_t>(issues::issue_event_columns::kCount));
  namespace c = issues::issue_event_columns;
  EXPECT_EQ(names[c::kId], "event_id");
  EXPECT_EQ(names[c::kAtMicros], "at_micros");
  EXPECT_EQ(names[c::kActor], "actor");
  EXPECT_EQ(names[c::kType], "type");
  EXPECT_EQ(names[c::kFromValue], "from_value");
  EXPECT_EQ(names[c::kToValue], "to_value");
  EXPECT_EQ(names[c::kNote], "note");
  EXPECT_EQ(names[c::kField], "field");
}

TEST(SqlColumnsTest, ScheduleColumns) {
  const auto names = ColumnNames(sql::schedules::kScheduleSelect);
  ASSERT_EQ(names.size(), static_cast<size_t>(schedules::schedule_columns::kCount));
  namespace c = schedules::schedule_columns;
  EXPECT_EQ(names[c::kId], "id");
  EXPECT_EQ(names[c::kPropertyId], "property_id");
  EXPECT_EQ(names[c::kRoomNumber], "room_number");
  EXPECT_EQ(names[c::kEquipmentId], "equipment_id");
  EXPECT_EQ(names[c::kTask], "task");
  EXPECT_EQ(names[c::kIntervalUnit], "interval_unit");
  EXPECT_EQ(names[c::kIntervalCount], "interval_count");
  EXPECT_EQ(names[c::kStartsOn], "starts_on");
  EXPECT_EQ(names[c::kEndsOn], "ends_on");
  EXPECT_EQ(names[c::kBasis], "basis");
  EXPECT_EQ(names[c::kNextDueOn], "next_due_on");
  EXPECT_EQ(names[c::kLastCompletedAtMicros], "last_completed_at_micros");
  EXPECT_EQ(names[c::kActive], "active");
  EXPECT_EQ(names[c::kOverdue], "overdue");
  EXPECT_EQ(names[c::kCreatedAtMicros], "created_at_micros");
  EXPECT_EQ(names[c::kTimeZone], "time_zone");
}

TEST(SqlColumnsTest, ScheduleLockColumns) {
  const auto names = ColumnNames(sql::schedules::kLockSchedule);
  ASSERT_EQ(names.size(), static_cast<size_t>(schedules::schedule_lock_columns::kCount));
  namespace c = schedules::schedule_lock_columns;
  EXPECT_EQ(names[c::kActive], "active");
  EXPECT_EQ(names[c::kIntervalUnit], "interval_unit");
  EXPECT_EQ(names[c::kIntervalCount], "interval_count");
  EXPECT_EQ(names[c::kBasis], "basis");
  EXPECT_EQ(names[c::kStartsOn], "starts_on");
  EXPECT_EQ(names[c::kNextDueOn], "next_due_on");
  EXPECT_EQ(names[c::kEndsOn], "ends_on");
  EXPECT_EQ(names[c::kLastCompletedAtMicros], "last_completed_at_micros");
  EXPECT_EQ(names[c::kTimeZone], "time_zone");
  EXPECT_EQ(names[c::kNowMicros], "now_micros");
}

TEST(SqlColumnsTest, CompletionColumns) {
  const auto names = ColumnNames(sql::schedules::kCompletionSelect);
  ASSERT_EQ(names.size(), static_cast<size_t>(schedules::completion_columns::kCount));
  namespace c = schedules::completion_columns;
  EXPECT_EQ(names[c::kId], "id");
  EXPECT_EQ(names[c::kScheduleId], "schedule_id");
  EXPECT_EQ(names[c::kDueOn], "due_on");
  EXPECT_EQ(names[c::kCompletedAtMicros], "completed_at_micros");
  EXPECT_EQ(names[c::kCompletedOn], "completed_on");
  EXPECT_EQ(names[c::kCompletedBy], "completed_by");
  EXPECT_EQ(names[c::kNotes], "notes");
  EXPECT_EQ(names[c::kLate], "late");
  EXPECT_EQ(names[c::kDaysLate], "days_late");
  EXPECT_EQ(names[c::kNextDueOn], "next_due_on");
  EXPECT_EQ(names[c::kTask], "task");
}

TEST(SqlColumnsTest, EquipmentColumns) {
  const auto names = ColumnNames(sql::equipment::kEquipmentSelect);
  ASSERT_EQ(names.size(), static_cast<size_t>(equipment::equipment_columns::kCount));
  namespace c = equipment::equipment_columns;
  EXPECT_EQ(names[c::kId], "id");
  EXPECT_EQ(names[c::kPropertyId], "property_id");
  EXPECT_EQ(names[c::kRoomNumber], "room_number");
  EXPECT_EQ(names[c::kName], "name");
  EXPECT_EQ(names[c::kType], "type");
  EXPECT_EQ(names[c::kManufacturer], "manufacturer");
  EXPECT_EQ(names[c::kModel], "model");
  EXPECT_EQ(names[c::kSerialNumber], "serial_number");
  EXPECT_EQ(names[c::kInstalledOn], "installed_on");
  EXPECT_EQ(names[c::kWarrantyExpiresOn], "warranty_expires_on");
  EXPECT_EQ(names[c::kStatus], "status");
  EXPECT_EQ(names[c::kNotes], "notes");
  EXPECT_EQ(names[c::kCreatedAtMicros], "created_at_micros");
}

TEST(SqlColumnsTest, ImageColumns) {
  const auto names = ColumnNames(sql::images::kImageSelect);
  ASSERT_EQ(names.size(), static_cast<size_t>(images::image_columns::kCount));
  namespace c = images::image_columns;
  EXPECT_EQ(names[c::kId], "id");
  EXPECT_EQ(names[c::kAltText], "alt_text");
  EXPECT_EQ(names[c::kSortOrder], "sort_order");
  EXPECT_EQ(names[c::kWidth], "width");
  EXPECT_EQ(names[c::kHeight], "height");
  EXPECT_EQ(names[c::kVariant], "variant");
  EXPECT_EQ(names[c::kFormat], "format");
  EXPECT_EQ(names[c::kStorageKey], "storage_key");
  EXPECT_EQ(names[c::kFileWidth], "file_width");
  EXPECT_EQ(names[c::kFileHeight], "file_height");
  EXPECT_EQ(names[c::kFileBytes], "file_bytes");
}

}  // namespace
}  // namespace hotel
