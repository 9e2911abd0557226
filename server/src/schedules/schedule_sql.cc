#include "schedules/schedule_sql.h"

#include "absl/strings/str_cat.h"
#include "db/timestamps.h"
#include "sql/schedules.h"

namespace hotel::schedules {

using hotel::v1::Schedule;
using hotel::v1::ScheduleCompletion;

void ReadSchedule(const pqxx::row& row, Schedule* out) {
  out->set_id(row[schedule_columns::kId].c_str());
  out->set_property_id(row[schedule_columns::kPropertyId].c_str());
  out->set_room_number(row[schedule_columns::kRoomNumber].c_str());
  out->set_equipment_id(row[schedule_columns::kEquipmentId].c_str());
  out->set_task(row[schedule_columns::kTask].c_str());
  out->set_interval_unit(db::ParseEnum<Schedule::IntervalUnit>(row[schedule_columns::kIntervalUnit].c_str()));
  out->set_interval_count(row[schedule_columns::kIntervalCount].as<int>());
  out->set_starts_on(row[schedule_columns::kStartsOn].c_str());
  out->set_ends_on(row[schedule_columns::kEndsOn].c_str());
  out->set_basis(db::ParseEnum<Schedule::Basis>(row[schedule_columns::kBasis].c_str()));
  out->set_next_due_on(row[schedule_columns::kNextDueOn].c_str());
  db::ReadTimestamp(row[schedule_columns::kLastCompletedAtMicros], out->mutable_last_completed_at());
  if (row[schedule_columns::kLastCompletedAtMicros].is_null()) out->clear_last_completed_at();
  out->set_active(row[schedule_columns::kActive].as<bool>());
  out->set_overdue(row[schedule_columns::kOverdue].as<bool>());
  db::ReadTimestamp(row[schedule_columns::kCreatedAtMicros], out->mutable_created_at());
}

void ReadCompletion(const pqxx::row& row, ScheduleCompletion* out) {
  out->set_id(row[completion_columns::kId].c_str());
  out->set_schedule_id(row[completion_columns::kScheduleId].c_str());
  out->set_due_on(row[completion_columns::kDueOn].c_str());
  db::ReadTimestamp(row[completion_columns::kCompletedAtMicros], out->mutable_completed_at());
  out->set_completed_on(row[completion_columns::kCompletedOn].c_str());
  out->set_completed_by(row[completion_columns::kCompletedBy].c_str());
  out->set_notes(row[completion_columns::kNotes].c_str());
  out->set_late(row[completion_columns::kLate].as<bool>());
  out->set_days_late(row[completion_columns::kDaysLate].as<int>());
  out->set_next_due_on(row[completion_columns::kNextDueOn].c_str());
  out->set_task(row[completion_columns::kTask].c_str());
}

db::SqlQuery BuildListSchedulesSql(const ScheduleListQuery& q) {
  db::SqlQuery sql;
  db::WhereClause where;
  if (!q.property_id.empty()) where.Add(absl::StrCat("s.property_id = ", sql.Bind(q.property_id)));
  if (!q.room_number.empty()) where.Add(absl::StrCat("s.room_number = ", sql.Bind(q.room_number)));
  if (!q.equipment_id.empty()) where.Add(absl::StrCat("s.equipment_id = ", sql.Bind(q.equipment_id), "::uuid"));
  if (q.active) where.Add(absl::StrCat("s.active = ", sql.Bind(*q.active ? "true" : "false"), "::bool"));
  if (q.overdue) {
    where.Add(absl::StrCat("(s.active AND s.next_due_on < (now() AT TIME ZONE p.time_zone)::date) = ",
                           sql.Bind(*q.overdue ? "true" : "false"), "::bool"));
  }
  if (!q.after.empty()) {
    const std::string property = sql.Bind(q.after[0]);
    const std::string room = sql.Bind(q.after[1]);
    const std::string at = db::TimestampFromKey(sql, q.after[2]);
    const std::string id = sql.Bind(q.after[3]);
    where.Add(absl::StrCat("(s.property_id, s.room_number, s.created_at, s.id) > (", property, ", ", room, ", ", at,
                           ", ", id, "::uuid)"));
  }
  sql.text = absl::StrCat(sql::schedules::kScheduleSelect, where.ToSql(),
                          " ORDER BY s.property_id, s.room_number, s.created_at, s.id");
  sql.text += db::Limit(sql, q.page_size);
  return sql;
}

std::vector<std::string> SchedulePageKey(const pqxx::row& row) {
  return {row[schedule_columns::kPropertyId].c_str(), row[schedule_columns::kRoomNumber].c_str(),
          row[schedule_columns::kCreatedAtMicros].c_str(), row[schedule_columns::kId].c_str()};
}

}  // namespace hotel::schedules
