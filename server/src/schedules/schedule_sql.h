// The statements that read schedules and their completions, and the row readers beside them.
#pragma once

#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "db/sql.h"
#include "hotel/v1/maintenance.pb.h"
#include "schedules/schedule_request.h"

namespace hotel::schedules {

// The columns of the completion statements, in order: readers and page keys use
// these names, never numbers.
namespace completion_columns {
enum : int {
  kId,
  kScheduleId,
  kDueOn,
  kCompletedAtMicros,
  kCompletedOn,
  kCompletedBy,
  kNotes,
  kLate,
  kDaysLate,
  kNextDueOn,
  kTask,
  kCount
};
}  // namespace completion_columns

// The columns of sql/lock_schedule.sql, in order.
namespace schedule_lock_columns {
enum : int {
  kActive,
  kIntervalUnit,
  kIntervalCount,
  kBasis,
  kStartsOn,
  kNextDueOn,
  kEndsOn,
  kLastCompletedAtMicros,
  kTimeZone,
  kNowMicros,
  kCount
};
}  // namespace schedule_lock_columns

// The columns of the schedule statements, in order: readers and page keys use
// these names, never numbers.
namespace schedule_columns {
enum : int {
  kId,
  kPropertyId,
  kRoomNumber,
  kEquipmentId,
  kTask,
  kIntervalUnit,
  kIntervalCount,
  kStartsOn,
  kEndsOn,
  kBasis,
  kNextDueOn,
  kLastCompletedAtMicros,
  kActive,
  kOverdue,
  kCreatedAtMicros,
  kTimeZone,
  kCount
};
}  // namespace schedule_columns

// "SELECT <columns> FROM maintenance_schedules s JOIN properties p" — read by ReadSchedule;
// column 14 is created_at in microseconds (keyset), column 15 the property's time zone.
extern const absl::string_view kScheduleSelect;

void ReadSchedule(const pqxx::row& row, hotel::v1::Schedule* out);

// "SELECT <columns> FROM schedule_completions c JOIN maintenance_schedules s" — ReadCompletion.
extern const absl::string_view kCompletionSelect;

void ReadCompletion(const pqxx::row& row, hotel::v1::ScheduleCompletion* out);

// page_size + 1 rows, by room then creation.
db::SqlQuery BuildListSchedulesSql(const ScheduleListQuery& query);

// The page-token key of a listed row: property_id, room_number, created_at (micros), id.
std::vector<std::string> SchedulePageKey(const pqxx::row& row);

}  // namespace hotel::schedules
