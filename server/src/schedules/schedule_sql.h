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

// The columns of schedules/sql/_completion_select.sql, in order: readers use these names, never
// numbers (sql_columns_test checks the order against the file).
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

// The columns of schedules/sql/lock_schedule.sql, in order (checked by sql_columns_test).
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

// The columns of schedules/sql/_schedule_select.sql, in order: readers and page keys use these
// names, never numbers (sql_columns_test checks the order against the file).
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

void ReadSchedule(const pqxx::row& row, hotel::v1::Schedule* out);

void ReadCompletion(const pqxx::row& row, hotel::v1::ScheduleCompletion* out);

// page_size + 1 rows, by room then creation.
db::SqlQuery BuildListSchedulesSql(const ScheduleListQuery& query);

// The page-token key of a listed row: property_id, room_number, created_at (micros), id.
std::vector<std::string> SchedulePageKey(const pqxx::row& row);

}  // namespace hotel::schedules
