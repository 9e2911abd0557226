#include "maintenance/maintenance_rows.h"

#include "absl/strings/str_cat.h"
#include "common/page_token.h"
#include "maintenance/issue_state_machine.h"

namespace hotel::maintenance {

using hotel::v1::Equipment;
using hotel::v1::Issue;
using hotel::v1::IssueEvent;
using hotel::v1::Schedule;
using hotel::v1::ScheduleCompletion;

const absl::string_view kEquipmentSelect =
    "SELECT e.id::text, e.property_id, e.room_number, e.name, e.type, e.manufacturer, e.model, e.serial_number,"
    " coalesce(to_char(e.installed_on, 'YYYY-MM-DD'), ''), coalesce(to_char(e.warranty_expires_on, 'YYYY-MM-DD'), ''),"
    " e.status, e.notes, (extract(epoch FROM e.created_at) * 1000000)::int8"
    " FROM equipment e";

void ReadEquipment(const pqxx::row& row, Equipment* out) {
  out->set_id(row[0].c_str());
  out->set_property_id(row[1].c_str());
  out->set_room_number(row[2].c_str());
  out->set_name(row[3].c_str());
  out->set_type(row[4].c_str());
  out->set_manufacturer(row[5].c_str());
  out->set_model(row[6].c_str());
  out->set_serial_number(row[7].c_str());
  out->set_installed_on(row[8].c_str());
  out->set_warranty_expires_on(row[9].c_str());
  Equipment::Status status = Equipment::STATUS_UNSPECIFIED;
  Equipment::Status_Parse(row[10].c_str(), &status);
  out->set_status(status);
  out->set_notes(row[11].c_str());
  db::ReadTimestamp(row[12], out->mutable_created_at());
}

const absl::string_view kScheduleSelect =
    "SELECT s.id::text, s.property_id, s.room_number, coalesce(s.equipment_id::text, ''), s.task, s.interval_unit,"
    " s.interval_count, to_char(s.starts_on, 'YYYY-MM-DD'), coalesce(to_char(s.ends_on, 'YYYY-MM-DD'), ''), s.basis,"
    " to_char(s.next_due_on, 'YYYY-MM-DD'), (extract(epoch FROM s.last_completed_at) * 1000000)::int8, s.active,"
    " (s.active AND s.next_due_on < (now() AT TIME ZONE p.time_zone)::date),"
    " (extract(epoch FROM s.created_at) * 1000000)::int8, p.time_zone"
    " FROM maintenance_schedules s JOIN properties p ON p.id = s.property_id";

void ReadSchedule(const pqxx::row& row, Schedule* out) {
  out->set_id(row[0].c_str());
  out->set_property_id(row[1].c_str());
  out->set_room_number(row[2].c_str());
  out->set_equipment_id(row[3].c_str());
  out->set_task(row[4].c_str());
  Schedule::IntervalUnit unit = Schedule::INTERVAL_UNIT_UNSPECIFIED;
  Schedule::IntervalUnit_Parse(row[5].c_str(), &unit);
  out->set_interval_unit(unit);
  out->set_interval_count(row[6].as<int>());
  out->set_starts_on(row[7].c_str());
  out->set_ends_on(row[8].c_str());
  Schedule::Basis basis = Schedule::BASIS_UNSPECIFIED;
  Schedule::Basis_Parse(row[9].c_str(), &basis);
  out->set_basis(basis);
  out->set_next_due_on(row[10].c_str());
  db::ReadTimestamp(row[11], out->mutable_last_completed_at());
  if (row[11].is_null()) out->clear_last_completed_at();
  out->set_active(row[12].as<bool>());
  out->set_overdue(row[13].as<bool>());
  db::ReadTimestamp(row[14], out->mutable_created_at());
}

const absl::string_view kCompletionSelect =
    "SELECT c.id::text, c.schedule_id::text, to_char(c.due_on, 'YYYY-MM-DD'),"
    " (extract(epoch FROM c.completed_at) * 1000000)::int8, to_char(c.completed_on, 'YYYY-MM-DD'), c.completed_by,"
    " c.notes, c.late, c.days_late, to_char(c.next_due_on, 'YYYY-MM-DD'), s.task"
    " FROM schedule_completions c JOIN maintenance_schedules s ON s.id = c.schedule_id";

void ReadCompletion(const pqxx::row& row, ScheduleCompletion* out) {
  out->set_id(row[0].c_str());
  out->set_schedule_id(row[1].c_str());
  out->set_due_on(row[2].c_str());
  db::ReadTimestamp(row[3], out->mutable_completed_at());
  out->set_completed_on(row[4].c_str());
  out->set_completed_by(row[5].c_str());
  out->set_notes(row[6].c_str());
  out->set_late(row[7].as<bool>());
  out->set_days_late(row[8].as<int>());
  out->set_next_due_on(row[9].c_str());
  out->set_task(row[10].c_str());
}

// Written once, used as a column list (RETURNING, CTEs) and as a SELECT.
#define HOTEL_ISSUE_COLUMNS                                                                                          \
  "i.id::text, i.property_id, i.room_number, coalesce(i.equipment_id::text, ''), i.title, i.description,"           \
  " i.category, i.priority, i.status, i.status_reason, i.reported_by, i.assignee, i.take_room_out_of_order,"        \
  " (extract(epoch FROM i.created_at) * 1000000)::int8, (extract(epoch FROM i.updated_at) * 1000000)::int8,"        \
  " (extract(epoch FROM i.resolved_at) * 1000000)::int8, (extract(epoch FROM i.first_response_at) * 1000000)::int8," \
  " (extract(epoch FROM i.resolve_by) * 1000000)::int8,"                                                             \
  " (i.status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD') AND i.resolve_by < now()), i.updated_by, i.version"
const absl::string_view kIssueColumns = HOTEL_ISSUE_COLUMNS;
const absl::string_view kIssueSelect = "SELECT " HOTEL_ISSUE_COLUMNS " FROM issues i";
#undef HOTEL_ISSUE_COLUMNS

void ReadIssue(const pqxx::row& row, Issue* out) {
  out->set_id(row[0].c_str());
  out->set_property_id(row[1].c_str());
  out->set_room_number(row[2].c_str());
  out->set_equipment_id(row[3].c_str());
  out->set_title(row[4].c_str());
  out->set_description(row[5].c_str());
  Issue::Category category = Issue::CATEGORY_UNSPECIFIED;
  Issue::Category_Parse(row[6].c_str(), &category);
  out->set_category(category);
  Issue::Priority priority = Issue::PRIORITY_UNSPECIFIED;
  Issue::Priority_Parse(row[7].c_str(), &priority);
  out->set_priority(priority);
  Issue::Status status = Issue::STATUS_UNSPECIFIED;
  Issue::Status_Parse(row[8].c_str(), &status);
  out->set_status(status);
  out->set_reason(row[9].c_str());
  out->set_reported_by(row[10].c_str());
  out->set_assignee(row[11].c_str());
  out->set_take_room_out_of_order(row[12].as<bool>());
  db::ReadTimestamp(row[13], out->mutable_created_at());
  db::ReadTimestamp(row[14], out->mutable_updated_at());
  if (!row[15].is_null()) db::ReadTimestamp(row[15], out->mutable_resolved_at());
  if (!row[16].is_null()) db::ReadTimestamp(row[16], out->mutable_first_response_at());
  db::ReadTimestamp(row[17], out->mutable_resolve_by());
  out->set_overdue(row[18].as<bool>());
  out->set_updated_by(row[19].c_str());
  out->set_etag(IssueEtag(out->id(), row[20].as<int64_t>()));
  out->clear_allowed_transitions();
  for (IssueStatus s : AllowedTransitions(status)) out->add_allowed_transitions(s);
}

int64_t IssueVersion(const pqxx::row& row) { return row[20].as<int64_t>(); }

#define HOTEL_ISSUE_EVENT_COLUMNS                                                                          \
  "ev.id::text, (extract(epoch FROM ev.at) * 1000000)::int8, ev.actor, ev.type, ev.from_value, ev.to_value," \
  " ev.note, ev.field"
const absl::string_view kIssueEventColumns = HOTEL_ISSUE_EVENT_COLUMNS;
const absl::string_view kIssueEventSelect = "SELECT " HOTEL_ISSUE_EVENT_COLUMNS " FROM issue_events ev";
#undef HOTEL_ISSUE_EVENT_COLUMNS

void ReadIssueEvent(const pqxx::row& row, IssueEvent* out, int first) {
  out->set_id(row[first].c_str());
  db::ReadTimestamp(row[first + 1], out->mutable_at());
  out->set_actor(row[first + 2].c_str());
  IssueEvent::Type type = IssueEvent::TYPE_UNSPECIFIED;
  IssueEvent::Type_Parse(row[first + 3].c_str(), &type);
  out->set_type(type);
  out->set_from(row[first + 4].c_str());
  out->set_to(row[first + 5].c_str());
  out->set_note(row[first + 6].c_str());
  out->set_field(row[first + 7].c_str());
}

std::string IssueEtag(absl::string_view id, int64_t version) {
  return FilterFingerprint(absl::StrCat("issue|", id, "|", version));
}

}  // namespace hotel::maintenance
