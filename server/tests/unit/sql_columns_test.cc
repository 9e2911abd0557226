// The readers name columns by enums (issue_columns::kVersion …) kept beside the statements; these
// tests hold each enum to the column list of its sql/_*_columns.sql file, so a column added,
// removed or moved in one place but not the other fails here rather than reading the wrong value.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "blocks/block_sql.h"
#include "equipment/equipment_sql.h"
#include "gtest/gtest.h"
#include "images/image_sql.h"
#include "issues/issue_sql.h"
#include "rooms/room_sql.h"
#include "schedules/schedule_sql.h"
#include "sql/blocks.h"
#include "sql/equipment.h"
#include "sql/images.h"
#include "sql/issues.h"
#include "sql/rooms.h"
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

// Every column the enum names is where the enum says, and the list has no other columns.
void ExpectColumns(absl::string_view list, int count, const std::vector<std::pair<int, std::string>>& expected) {
  const auto names = ColumnNames(list);
  ASSERT_EQ(names.size(), static_cast<size_t>(count)) << list;
  ASSERT_EQ(expected.size(), static_cast<size_t>(count)) << "name every column of the enum here";
  for (const auto& [index, name] : expected) EXPECT_EQ(names[index], name) << "column " << index << " of " << list;
}

TEST(SqlColumnsTest, ColumnNamesReadsAliasesAndColumns) {
  EXPECT_EQ(ColumnNames("i.id::text AS id, coalesce(a, 'x,y') AS b,\ni.title"),
            (std::vector<std::string>{"id", "b", "title"}));
  EXPECT_EQ(ColumnNames("SELECT e.id, e.name\nFROM equipment e"), (std::vector<std::string>{"id", "name"}));
}

TEST(SqlColumnsTest, IssueColumns) {
  namespace c = issues::issue_columns;
  ExpectColumns(sql::issues::kIssueColumns, issues::issue_columns::kCount,
                {{c::kId, "id"},
                 {c::kPropertyId, "property_id"},
                 {c::kRoomNumber, "room_number"},
                 {c::kEquipmentId, "equipment_id"},
                 {c::kTitle, "title"},
                 {c::kDescription, "description"},
                 {c::kCategory, "category"},
                 {c::kPriority, "priority"},
                 {c::kStatus, "status"},
                 {c::kStatusReason, "status_reason"},
                 {c::kReportedBy, "reported_by"},
                 {c::kAssignee, "assignee"},
                 {c::kTakeRoomOutOfOrder, "take_room_out_of_order"},
                 {c::kCreatedAtMicros, "created_at_micros"},
                 {c::kUpdatedAtMicros, "updated_at_micros"},
                 {c::kResolvedAtMicros, "resolved_at_micros"},
                 {c::kFirstResponseAtMicros, "first_response_at_micros"},
                 {c::kResolveByMicros, "resolve_by_micros"},
                 {c::kOverdue, "overdue"},
                 {c::kUpdatedBy, "updated_by"},
                 {c::kVersion, "version"},
                 {c::kReturnCondition, "return_condition"}});
}

TEST(SqlColumnsTest, RoomBlockColumns) {
  namespace c = blocks::room_block_columns;
  ExpectColumns(sql::blocks::kRoomBlockColumns, blocks::room_block_columns::kCount,
                {{c::kId, "id"},
                 {c::kPropertyId, "property_id"},
                 {c::kRoomNumber, "room_number"},
                 {c::kType, "type"},
                 {c::kStartDate, "start_date"},
                 {c::kEndDate, "end_date"},
                 {c::kReason, "reason"},
                 {c::kIssueId, "issue_id"},
                 {c::kOrigin, "origin"},
                 {c::kStatus, "status"},
                 {c::kCreatedAtMicros, "created_at_micros"},
                 {c::kUpdatedAtMicros, "updated_at_micros"},
                 {c::kCancelledAtMicros, "cancelled_at_micros"},
                 {c::kUpdatedBy, "updated_by"},
                 {c::kVersion, "version"},
                 {c::kStartDays, "start_days"},
                 {c::kReturnCondition, "return_condition"}});
}

TEST(SqlColumnsTest, IssueEventColumns) {
  namespace c = issues::issue_event_columns;
  ExpectColumns(sql::issues::kIssueEventColumns, issues::issue_event_columns::kCount,
                {{c::kId, "event_id"},
                 {c::kAtMicros, "at_micros"},
                 {c::kActor, "actor"},
                 {c::kType, "type"},
                 {c::kFromValue, "from_value"},
                 {c::kToValue, "to_value"},
                 {c::kNote, "note"},
                 {c::kField, "field"}});
}

TEST(SqlColumnsTest, ScheduleColumns) {
  namespace c = schedules::schedule_columns;
  ExpectColumns(sql::schedules::kScheduleSelect, schedules::schedule_columns::kCount,
                {{c::kId, "id"},
                 {c::kPropertyId, "property_id"},
                 {c::kRoomNumber, "room_number"},
                 {c::kEquipmentId, "equipment_id"},
                 {c::kTask, "task"},
                 {c::kIntervalUnit, "interval_unit"},
                 {c::kIntervalCount, "interval_count"},
                 {c::kStartsOn, "starts_on"},
                 {c::kEndsOn, "ends_on"},
                 {c::kBasis, "basis"},
                 {c::kNextDueOn, "next_due_on"},
                 {c::kLastCompletedAtMicros, "last_completed_at_micros"},
                 {c::kActive, "active"},
                 {c::kOverdue, "overdue"},
                 {c::kCreatedAtMicros, "created_at_micros"},
                 {c::kTimeZone, "time_zone"}});
}

TEST(SqlColumnsTest, ScheduleLockColumns) {
  namespace c = schedules::schedule_lock_columns;
  ExpectColumns(sql::schedules::kLockSchedule, schedules::schedule_lock_columns::kCount,
                {{c::kActive, "active"},
                 {c::kIntervalUnit, "interval_unit"},
                 {c::kIntervalCount, "interval_count"},
                 {c::kBasis, "basis"},
                 {c::kStartsOn, "starts_on"},
                 {c::kNextDueOn, "next_due_on"},
                 {c::kEndsOn, "ends_on"},
                 {c::kLastCompletedAtMicros, "last_completed_at_micros"},
                 {c::kTimeZone, "time_zone"},
                 {c::kNowMicros, "now_micros"}});
}

TEST(SqlColumnsTest, CompletionColumns) {
  namespace c = schedules::completion_columns;
  ExpectColumns(sql::schedules::kCompletionSelect, schedules::completion_columns::kCount,
                {{c::kId, "id"},
                 {c::kScheduleId, "schedule_id"},
                 {c::kDueOn, "due_on"},
                 {c::kCompletedAtMicros, "completed_at_micros"},
                 {c::kCompletedOn, "completed_on"},
                 {c::kCompletedBy, "completed_by"},
                 {c::kNotes, "notes"},
                 {c::kLate, "late"},
                 {c::kDaysLate, "days_late"},
                 {c::kNextDueOn, "next_due_on"},
                 {c::kTask, "task"}});
}

TEST(SqlColumnsTest, EquipmentColumns) {
  namespace c = equipment::equipment_columns;
  ExpectColumns(sql::equipment::kEquipmentSelect, equipment::equipment_columns::kCount,
                {{c::kId, "id"},
                 {c::kPropertyId, "property_id"},
                 {c::kRoomNumber, "room_number"},
                 {c::kName, "name"},
                 {c::kType, "type"},
                 {c::kManufacturer, "manufacturer"},
                 {c::kModel, "model"},
                 {c::kSerialNumber, "serial_number"},
                 {c::kInstalledOn, "installed_on"},
                 {c::kWarrantyExpiresOn, "warranty_expires_on"},
                 {c::kStatus, "status"},
                 {c::kNotes, "notes"},
                 {c::kCreatedAtMicros, "created_at_micros"}});
}

TEST(SqlColumnsTest, ImageColumns) {
  namespace c = images::image_columns;
  ExpectColumns(sql::images::kImageSelect, images::image_columns::kCount,
                {{c::kId, "id"},
                 {c::kAltText, "alt_text"},
                 {c::kSortOrder, "sort_order"},
                 {c::kWidth, "width"},
                 {c::kHeight, "height"},
                 {c::kVariant, "variant"},
                 {c::kFormat, "format"},
                 {c::kStorageKey, "storage_key"},
                 {c::kFileWidth, "file_width"},
                 {c::kFileHeight, "file_height"},
                 {c::kFileBytes, "file_bytes"},
                 {c::kVersion, "version"},
                 {c::kRoomTypeId, "room_type_id"},
                 {c::kPropertyId, "property_id"},
                 {c::kRoomNumber, "room_number"}});
}

TEST(SqlColumnsTest, PropertyColumns) {
  namespace c = rooms::property_columns;
  ExpectColumns(sql::rooms::kPropertySelect, c::kCount,
                {{c::kId, "id"},
                 {c::kName, "name"},
                 {c::kEnabled, "enabled"},
                 {c::kTimeZone, "time_zone"},
                 {c::kCity, "city"},
                 {c::kCountryCode, "country_code"},
                 {c::kRoomCount, "room_count"},
                 {c::kRoomTypeCount, "room_type_count"},
                 {c::kVersion, "version"},
                 {c::kUpdatedBy, "updated_by"},
                 {c::kUpdatedAtMicros, "updated_at_micros"}});
}

TEST(SqlColumnsTest, RoomTypeColumns) {
  namespace c = rooms::room_type_columns;
  ExpectColumns(sql::rooms::kRoomTypeSelect, c::kCount,
                {{c::kId, "id"},
                 {c::kPropertyId, "property_id"},
                 {c::kCode, "code"},
                 {c::kName, "name"},
                 {c::kDescription, "description"},
                 {c::kCategory, "category"},
                 {c::kAmenities, "amenities"},
                 {c::kSizeSqm, "size_sqm"},
                 {c::kMaxGuests, "max_guests"},
                 {c::kBedType, "bed_type"},
                 {c::kVersion, "version"},
                 {c::kRetiredAtMicros, "retired_at_micros"},
                 {c::kUpdatedBy, "updated_by"},
                 {c::kUpdatedAtMicros, "updated_at_micros"},
                 {c::kImageCount, "image_count"}});
}

TEST(SqlColumnsTest, RoomColumns) {
  namespace c = rooms::room_columns;
  ExpectColumns(sql::rooms::kRoomSelect, c::kCount,
                {{c::kPropertyId, "property_id"},
                 {c::kNumber, "number"},
                 {c::kFloor, "floor"},
                 {c::kRoomTypeId, "room_type_id"},
                 {c::kCategory, "category"},
                 {c::kAmenities, "amenities"},
                 {c::kOutOfOrder, "out_of_order"},
                 {c::kOutOfOrderReason, "out_of_order_reason"},
                 {c::kOutOfOrderSinceMicros, "out_of_order_since_micros"},
                 {c::kEquipmentCount, "equipment_count"},
                 {c::kVersion, "version"},
                 {c::kRoomTypeVersion, "room_type_version"},
                 {c::kRetiredAtMicros, "retired_at_micros"},
                 {c::kUpdatedBy, "updated_by"},
                 {c::kUpdatedAtMicros, "updated_at_micros"},
                 {c::kExtraAmenities, "extra_amenities"},
                 {c::kImageCount, "image_count"},
                 {c::kHousekeepingCondition, "housekeeping_condition"},
                 {c::kHousekeepingOccupancy, "housekeeping_occupancy"},
                 {c::kHousekeepingOccupancySource, "housekeeping_occupancy_source"},
                 {c::kHousekeepingObservedMicros, "housekeeping_observed_micros"},
                 {c::kHousekeepingReason, "housekeeping_reason"},
                 {c::kHousekeepingUpdatedBy, "housekeeping_updated_by"},
                 {c::kHousekeepingUpdatedMicros, "housekeeping_updated_micros"},
                 {c::kHousekeepingObservedOccupancy, "housekeeping_observed_occupancy"},
                 {c::kHousekeepingObservedBy, "housekeeping_observed_by"},
                 {c::kHousekeepingObservedOccupancyMicros, "housekeeping_observed_occupancy_micros"},
                 {c::kHousekeepingServiceRequest, "housekeeping_service_request"},
                 {c::kHousekeepingCleaningPriority, "housekeeping_cleaning_priority"},
                 {c::kHousekeepingOutOfOrder, "housekeeping_out_of_order"},
                 {c::kHousekeepingOutOfServiceToday, "housekeeping_out_of_service_today"},
                 {c::kHousekeepingInspectionRequired, "housekeeping_inspection_required"},
                 {c::kHousekeepingVersion, "housekeeping_version"}});
}

}  // namespace
}  // namespace hotel
