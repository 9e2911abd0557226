#include "issues/issue_sql.h"

#include "absl/strings/str_cat.h"
#include "api/etag.h"
#include "db/timestamps.h"
#include "issues/issue_state_machine.h"
#include "sql/issues.h"

namespace hotel::issues {

using hotel::v1::Equipment;
using hotel::v1::Issue;
using hotel::v1::IssueEvent;
using hotel::v1::Schedule;
using hotel::v1::ScheduleCompletion;

void ReadIssue(const pqxx::row& row, Issue* out) {
  out->set_id(row[issue_columns::kId].c_str());
  out->set_property_id(row[issue_columns::kPropertyId].c_str());
  out->set_room_number(row[issue_columns::kRoomNumber].c_str());
  out->set_equipment_id(row[issue_columns::kEquipmentId].c_str());
  out->set_title(row[issue_columns::kTitle].c_str());
  out->set_description(row[issue_columns::kDescription].c_str());
  out->set_category(db::ParseEnum<Issue::Category>(row[issue_columns::kCategory].c_str()));
  out->set_priority(db::ParseEnum<Issue::Priority>(row[issue_columns::kPriority].c_str()));
  out->set_status(db::ParseEnum<Issue::Status>(row[issue_columns::kStatus].c_str()));
  out->set_reason(row[issue_columns::kStatusReason].c_str());
  out->set_reported_by(row[issue_columns::kReportedBy].c_str());
  out->set_assignee(row[issue_columns::kAssignee].c_str());
  out->set_take_room_out_of_order(row[issue_columns::kTakeRoomOutOfOrder].as<bool>());
  db::ReadTimestamp(row[issue_columns::kCreatedAtMicros], out->mutable_created_at());
  db::ReadTimestamp(row[issue_columns::kUpdatedAtMicros], out->mutable_updated_at());
  if (!row[issue_columns::kResolvedAtMicros].is_null())
    db::ReadTimestamp(row[issue_columns::kResolvedAtMicros], out->mutable_resolved_at());
  if (!row[issue_columns::kFirstResponseAtMicros].is_null())
    db::ReadTimestamp(row[issue_columns::kFirstResponseAtMicros], out->mutable_first_response_at());
  db::ReadTimestamp(row[issue_columns::kResolveByMicros], out->mutable_resolve_by());
  out->set_overdue(row[issue_columns::kOverdue].as<bool>());
  out->set_updated_by(row[issue_columns::kUpdatedBy].c_str());
  out->set_etag(IssueEtag(out->id(), row[issue_columns::kVersion].as<int64_t>()));
  out->set_return_condition(
      db::ParseEnum<hotel::v1::RoomHousekeeping::Condition>(row[issue_columns::kReturnCondition].c_str()));
  out->clear_allowed_transitions();
  for (IssueStatus s : AllowedTransitions(out->status())) out->add_allowed_transitions(s);
}

void ReadIssueEvent(const pqxx::row& row, IssueEvent* out, int first) {
  out->set_id(row[first + issue_event_columns::kId].c_str());
  db::ReadTimestamp(row[first + issue_event_columns::kAtMicros], out->mutable_at());
  out->set_actor(row[first + issue_event_columns::kActor].c_str());
  out->set_type(db::ParseEnum<IssueEvent::Type>(row[first + issue_event_columns::kType].c_str()));
  out->set_from(row[first + issue_event_columns::kFromValue].c_str());
  out->set_to(row[first + issue_event_columns::kToValue].c_str());
  out->set_note(row[first + issue_event_columns::kNote].c_str());
  out->set_field(row[first + issue_event_columns::kField].c_str());
}

std::string IssueEtag(absl::string_view id, int64_t version) { return api::VersionEtag("issue", id, {version}); }

db::SqlQuery BuildListIssuesSql(const IssueListQuery& q) {
  db::SqlQuery sql;
  db::WhereClause where;
  if (q.status) where.Add(absl::StrCat("i.status = ", sql.Bind(*q.status)));
  if (q.priority) where.Add(absl::StrCat("i.priority = ", sql.Bind(*q.priority)));
  if (q.category) where.Add(absl::StrCat("i.category = ", sql.Bind(*q.category)));
  if (!q.property_id.empty()) where.Add(absl::StrCat("i.property_id = ", sql.Bind(q.property_id)));
  if (!q.room_number.empty()) where.Add(absl::StrCat("i.room_number = ", sql.Bind(q.room_number)));
  if (!q.after.empty()) {
    const std::string at = db::TimestampFromKey(sql, q.after[0]);
    const std::string id = sql.Bind(q.after[1]);
    where.Add(absl::StrCat("(i.created_at, i.id) < (", at, ", ", id, "::uuid)"));
  }
  sql.text = absl::StrCat("SELECT ", sql::issues::kIssueColumns, " FROM issues i", where.ToSql(),
                          " ORDER BY i.created_at DESC, i.id DESC");
  sql.text += db::Limit(sql, q.page_size);
  return sql;
}

std::vector<std::string> IssuePageKey(const pqxx::row& row) {
  return {row[issue_columns::kCreatedAtMicros].c_str(), row[issue_columns::kId].c_str()};
}

}  // namespace hotel::issues
