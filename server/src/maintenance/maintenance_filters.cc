#include "maintenance/maintenance_filters.h"

#include <regex>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/identifiers.h"
#include "api/idempotency.h"
#include "api/paging.h"
#include "api/request_fields.h"
#include "common/page_token.h"
#include "common/text_fields.h"
#include "maintenance/maintenance_rows.h"
#include "rooms/room_filters.h"

namespace hotel::maintenance {
namespace {

using hotel::v1::Equipment;
using hotel::v1::Issue;
using hotel::v1::Schedule;

constexpr int kMaxIntervalCount = 1000;
constexpr absl::Duration kClockSkew = absl::Minutes(5);

bool Matches(absl::string_view value, const std::regex& pattern) {
  return std::regex_match(value.begin(), value.end(), pattern);
}

std::string IssueStatusNames() { return api::EnumNames(Issue::Status_descriptor()); }
std::string PriorityNames() { return api::EnumNames(Issue::Priority_descriptor()); }
std::string CategoryNames() { return api::EnumNames(Issue::Category_descriptor()); }
std::string EquipmentStatusNames() { return api::EnumNames(Equipment::Status_descriptor()); }

}  // namespace

absl::Duration ResolutionTarget(Issue::Priority priority) {
  switch (priority) {
    case Issue::URGENT: return absl::Hours(4);
    case Issue::HIGH: return absl::Hours(24);
    case Issue::LOW: return absl::Hours(168);
    default: return absl::Hours(72);  // MEDIUM
  }
}

// ---- Equipment ------------------------------------------------------------------------------

absl::StatusOr<NewEquipment> ValidateCreateEquipment(const hotel::v1::CreateEquipmentRequest& request) {
  if (request.property_id().empty()) {
    return api::PropertyIdRequired("room numbers repeat across properties");
  }
  static const std::regex kType("[a-z][a-z0-9_]{1,39}");
  FieldErrors errors;
  NewEquipment out;
  api::CheckRoom("property_id", request.property_id(), "number", request.number(), errors);
  out.property_id = request.property_id();
  out.room_number = request.number();
  out.name = api::Text("name", request.name(), api::kMaxTitleLength, true, errors);
  out.type = std::string(absl::StripAsciiWhitespace(request.type()));
  if (out.type.empty()) {
    errors.Add("type", "is required");
  } else if (!Matches(out.type, kType)) {
    errors.Add("type", "must be a lower_snake_case code of 2 to 40 characters, e.g. air_conditioner");
  }
  out.manufacturer = api::Text("manufacturer", request.manufacturer(), api::kMaxNameLength, false, errors);
  out.model = api::Text("model", request.model(), api::kMaxNameLength, false, errors);
  out.serial_number = api::Text("serial_number", request.serial_number(), api::kMaxNameLength, false, errors);
  out.installed_on = api::OptionalDate("installed_on", request.installed_on(), errors);
  out.warranty_expires_on = api::OptionalDate("warranty_expires_on", request.warranty_expires_on(), errors);
  if (!out.installed_on.empty() && !out.warranty_expires_on.empty() &&
      *ParseDate(out.warranty_expires_on) < *ParseDate(out.installed_on)) {
    errors.Add("warranty_expires_on", "must not be before installed_on");
  }
  if (request.status() == Equipment::STATUS_UNSPECIFIED) {
    out.status = "OPERATIONAL";
  } else if (!Equipment::Status_IsValid(request.status())) {
    errors.Add("status", absl::StrCat("must be one of ", EquipmentStatusNames()));
  } else {
    out.status = Equipment::Status_Name(request.status());
  }
  out.notes = api::Text("notes", request.notes(), api::kMaxTextLength, false, errors);
  api::CheckRequestId(request.request_id(), errors);
  if (!errors.empty()) return errors.ToStatus();
  out.request_id = request.request_id();
  out.request_hash = api::RequestFingerprint(request);
  return out;
}

absl::StatusOr<EquipmentListQuery> ParseListEquipment(const hotel::v1::ListEquipmentRequest& request) {
  if (request.property_id().empty()) return api::PropertyIdRequired("room numbers repeat across properties");
  FieldErrors errors;
  EquipmentListQuery query;
  api::CheckRoom("property_id", request.property_id(), "number", request.number(), errors);
  query.property_id = request.property_id();
  query.room_number = request.number();
  if (request.status() != Equipment::STATUS_UNSPECIFIED) {
    if (!Equipment::Status_IsValid(request.status())) {
      errors.Add("status", absl::StrCat("must be one of ", EquipmentStatusNames()));
    } else {
      query.status = Equipment::Status_Name(request.status());
    }
  }
  if (auto s = api::ApplyPaging(request.page_size(), request.page_token(), "equipment", 2, 0, 1, query, errors); !s.ok()) {
    return s;
  }
  return query;
}

std::string Fingerprint(const EquipmentListQuery& q) {
  return FilterFingerprint(absl::StrCat("property=", q.property_id, "|room=", q.room_number,
                                        "|status=", api::OptionalText(q.status)));
}

db::SqlQuery BuildListEquipmentSql(const EquipmentListQuery& q) {
  db::SqlQuery sql;
  db::WhereClause where;
  where.Add(absl::StrCat("e.property_id = ", sql.Bind(q.property_id)));
  where.Add(absl::StrCat("e.room_number = ", sql.Bind(q.room_number)));
  if (q.status) where.Add(absl::StrCat("e.status = ", sql.Bind(*q.status)));
  if (!q.after.empty()) {
    const std::string at = db::TimestampFromKey(sql, q.after[0]);
    const std::string id = sql.Bind(q.after[1]);
    where.Add(absl::StrCat("(e.created_at, e.id) > (", at, ", ", id, "::uuid)"));
  }
  sql.text = absl::StrCat(kEquipmentSelect, where.ToSql(), " ORDER BY e.created_at, e.id");
  sql.text += db::Limit(sql, q.page_size);
  return sql;
}

// ---- Schedules ------------------------------------------------------------------------------

absl::StatusOr<NewSchedule> ValidateCreateSchedule(const hotel::v1::CreateScheduleRequest& request) {
  if (request.property_id().empty()) return api::PropertyIdRequired("room numbers repeat across properties");
  FieldErrors errors;
  NewSchedule out;
  api::CheckRoom("property_id", request.property_id(), "room_number", request.room_number(), errors);
  out.property_id = request.property_id();
  out.room_number = request.room_number();
  if (!request.equipment_id().empty()) {
    api::Collect(api::ValidateUuid("equipment_id", request.equipment_id()), errors);
    out.equipment_id = absl::AsciiStrToLower(request.equipment_id());
  }
  out.task = api::Text("task", request.task(), api::kMaxTitleLength, true, errors);
  if (request.interval_unit() == Schedule::INTERVAL_UNIT_UNSPECIFIED) {
    errors.Add("interval_unit", "is required: DAY, WEEK, MONTH or YEAR");
  } else if (!Schedule::IntervalUnit_IsValid(request.interval_unit())) {
    errors.Add("interval_unit", "must be one of DAY, WEEK, MONTH, YEAR");
  } else {
    out.interval_unit = Schedule::IntervalUnit_Name(request.interval_unit());
  }
  if (request.interval_count() < 1 || request.interval_count() > kMaxIntervalCount) {
    errors.Add("interval_count", absl::StrCat("must be from 1 to ", kMaxIntervalCount));
  }
  out.interval_count = request.interval_count();
  std::optional<absl::CivilDay> starts = ParseDate(request.starts_on());
  if (request.starts_on().empty()) {
    errors.Add("starts_on", "is required (YYYY-MM-DD)");
  } else if (!starts) {
    errors.Add("starts_on", "must be a date in the form YYYY-MM-DD");
  }
  out.ends_on = api::OptionalDate("ends_on", request.ends_on(), errors);
  if (starts && !out.ends_on.empty() && *ParseDate(out.ends_on) < *starts) {
    errors.Add("ends_on", "must not be before starts_on");
  }
  if (request.basis() == Schedule::BASIS_UNSPECIFIED) {
    out.basis = "SCHEDULED_DATE";
  } else if (!Schedule::Basis_IsValid(request.basis())) {
    errors.Add("basis", "must be SCHEDULED_DATE or COMPLETED_DATE");
  } else {
    out.basis = Schedule::Basis_Name(request.basis());
  }
  api::CheckRequestId(request.request_id(), errors);
  if (!errors.empty()) return errors.ToStatus();
  out.starts_on = FormatDate(*starts);
  out.next_due_on = out.starts_on;
  out.request_id = request.request_id();
  out.request_hash = api::RequestFingerprint(request);
  return out;
}

absl::StatusOr<ScheduleListQuery> ParseListSchedules(const hotel::v1::ListSchedulesRequest& request) {
  FieldErrors errors;
  ScheduleListQuery query;
  if (!request.property_id().empty()) api::Collect(api::ValidatePropertyId("property_id", request.property_id()), errors);
  query.property_id = request.property_id();
  if (!request.room_number().empty()) {
    if (request.property_id().empty()) return api::PropertyIdRequired("room_number is only unique within a property");
    api::Collect(api::ValidateRoomNumber("room_number", request.room_number()), errors);
    query.room_number = request.room_number();
  }
  if (!request.equipment_id().empty()) {
    api::Collect(api::ValidateUuid("equipment_id", request.equipment_id()), errors);
    query.equipment_id = absl::AsciiStrToLower(request.equipment_id());
  }
  if (request.has_overdue()) query.overdue = request.overdue();
  if (request.has_active()) query.active = request.active();
  if (auto s = api::ApplyPaging(request.page_size(), request.page_token(), "schedules", 4, 2, 3, query, errors); !s.ok()) {
    return s;
  }
  return query;
}

std::string Fingerprint(const ScheduleListQuery& q) {
  return FilterFingerprint(absl::StrCat("property=", q.property_id, "|room=", q.room_number,
                                        "|equipment=", q.equipment_id, "|overdue=", api::OptionalBool(q.overdue),
                                        "|active=", api::OptionalBool(q.active)));
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
  sql.text = absl::StrCat(kScheduleSelect, where.ToSql(), " ORDER BY s.property_id, s.room_number, s.created_at, s.id");
  sql.text += db::Limit(sql, q.page_size);
  return sql;
}

absl::StatusOr<CompletionInput> ValidateScheduleAction(const hotel::v1::ApplyScheduleActionRequest& request) {
  FieldErrors errors;
  api::Collect(api::ValidateUuid("id", request.id()), errors);
  if (request.action() == hotel::v1::ApplyScheduleActionRequest::ACTION_UNSPECIFIED) {
    errors.Add("action", "is required: COMPLETE");
  } else if (!hotel::v1::ApplyScheduleActionRequest::Action_IsValid(request.action())) {
    errors.Add("action", "must be COMPLETE");
  }
  CompletionInput out;
  out.completed_by = api::Text("completed_by", request.completed_by(), api::kMaxNameLength, true, errors);
  out.notes = api::Text("notes", request.notes(), api::kMaxTextLength, false, errors);
  if (request.has_completed_at()) {
    const auto& ts = request.completed_at();
    // 2000-01-01 .. 3000-01-01: anything else is a client bug, not a maintenance record.
    if (ts.seconds() < 946684800 || ts.seconds() > 32503680000 || ts.nanos() < 0 || ts.nanos() > 999999999) {
      errors.Add("completed_at", "must be a time between 2000 and 3000 (RFC 3339)");
    } else {
      out.completed_at = absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
    }
  }
  if (!request.expected_due_on().empty()) {
    out.expected_due_on = ParseDate(request.expected_due_on());
    if (!out.expected_due_on) errors.Add("expected_due_on", "must be a date in the form YYYY-MM-DD");
  }
  api::CheckRequestId(request.request_id(), errors);
  if (!errors.empty()) return errors.ToStatus();
  out.request_id = request.request_id();
  out.request_hash = api::RequestFingerprint(request);
  return out;
}

absl::StatusOr<CompletionDecision> DecideCompletion(const ScheduleState& schedule, const CompletionInput& input,
                                                    absl::Time now) {
  if (!schedule.active) {
    return FailedPreconditionError("SCHEDULE_INACTIVE", "the schedule has ended and cannot be completed");
  }
  CompletionDecision out;
  out.completed_at = input.completed_at.value_or(now);
  if (out.completed_at > now + kClockSkew) {
    return InvalidField("completed_at", "must not be in the future");
  }
  out.completed_on = LocalDay(out.completed_at, schedule.time_zone);
  out.due_on = schedule.next_due_on;
  if (input.expected_due_on) {
    if (*input.expected_due_on != schedule.next_due_on) {
      return AbortedError("DUE_DATE_MISMATCH",
                          absl::StrCat("the schedule's current occurrence is due on ", FormatDate(schedule.next_due_on),
                                       ", not ", FormatDate(*input.expected_due_on)));
    }
  } else if (schedule.last_completed_at &&
             LocalDay(*schedule.last_completed_at, schedule.time_zone) == out.completed_on) {
    return AbortedError("ALREADY_COMPLETED",
                        absl::StrCat("the schedule was already completed on ", FormatDate(out.completed_on),
                                     "; to complete the next occurrence (due ", FormatDate(schedule.next_due_on),
                                     ") as well, send expected_due_on"));
  }
  out.next_due_on = NextDueDate(schedule.rule, out.due_on, out.completed_on);
  out.days_late = DaysLate(out.due_on, out.completed_on);
  out.late = out.days_late > 0;
  out.still_active = !schedule.ends_on || out.next_due_on <= *schedule.ends_on;
  return out;
}

// ---- Issues ---------------------------------------------------------------------------------

absl::StatusOr<NewIssue> ValidateCreateIssue(const hotel::v1::CreateIssueRequest& request) {
  if (request.property_id().empty()) return api::PropertyIdRequired("every issue belongs to a room of a property");
  FieldErrors errors;
  NewIssue out;
  api::CheckRoom("property_id", request.property_id(), "room_number", request.room_number(), errors);
  out.property_id = request.property_id();
  out.room_number = request.room_number();
  if (!request.equipment_id().empty()) {
    api::Collect(api::ValidateUuid("equipment_id", request.equipment_id()), errors);
    out.equipment_id = absl::AsciiStrToLower(request.equipment_id());
  }
  out.title = api::Text("title", request.title(), api::kMaxTitleLength, true, errors);
  out.description = api::Text("description", request.description(), api::kMaxTextLength, false, errors);
  if (request.category() == Issue::CATEGORY_UNSPECIFIED) {
    errors.Add("category", absl::StrCat("is required: one of ", CategoryNames()));
  } else if (!Issue::Category_IsValid(request.category())) {
    errors.Add("category", absl::StrCat("must be one of ", CategoryNames()));
  } else {
    out.category = Issue::Category_Name(request.category());
  }
  Issue::Priority priority = Issue::MEDIUM;
  if (request.priority() != Issue::PRIORITY_UNSPECIFIED) {
    if (!Issue::Priority_IsValid(request.priority())) {
      errors.Add("priority", absl::StrCat("must be one of ", PriorityNames()));
    } else {
      priority = request.priority();
    }
  }
  out.priority = Issue::Priority_Name(priority);
  out.resolution_target_seconds = absl::ToInt64Seconds(ResolutionTarget(priority));
  out.reported_by = api::Text("reported_by", request.reported_by(), api::kMaxNameLength, true, errors);
  out.assignee = api::Text("assignee", request.assignee(), api::kMaxNameLength, false, errors);
  out.take_room_out_of_order = request.take_room_out_of_order();
  api::CheckRequestId(request.request_id(), errors);
  if (!errors.empty()) return errors.ToStatus();
  out.request_id = request.request_id();
  out.request_hash = api::RequestFingerprint(request);
  return out;
}

absl::StatusOr<IssueListQuery> ParseListIssues(const hotel::v1::ListIssuesRequest& request) {
  FieldErrors errors;
  IssueListQuery query;
  if (request.status() != Issue::STATUS_UNSPECIFIED) {
    if (!Issue::Status_IsValid(request.status())) {
      errors.Add("status", absl::StrCat("must be one of ", IssueStatusNames()));
    } else {
      query.status = Issue::Status_Name(request.status());
    }
  }
  if (request.priority() != Issue::PRIORITY_UNSPECIFIED) {
    if (!Issue::Priority_IsValid(request.priority())) {
      errors.Add("priority", absl::StrCat("must be one of ", PriorityNames()));
    } else {
      query.priority = Issue::Priority_Name(request.priority());
    }
  }
  if (request.category() != Issue::CATEGORY_UNSPECIFIED) {
    if (!Issue::Category_IsValid(request.category())) {
      errors.Add("category", absl::StrCat("must be one of ", CategoryNames()));
    } else {
      query.category = Issue::Category_Name(request.category());
    }
  }
  if (!request.property_id().empty()) api::Collect(api::ValidatePropertyId("property_id", request.property_id()), errors);
  query.property_id = request.property_id();
  if (!request.room_number().empty()) {
    if (request.property_id().empty()) return api::PropertyIdRequired("room_number is only unique within a property");
    api::Collect(api::ValidateRoomNumber("room_number", request.room_number()), errors);
    query.room_number = request.room_number();
  }
  if (auto s = api::ApplyPaging(request.page_size(), request.page_token(), "issues", 2, 0, 1, query, errors); !s.ok()) {
    return s;
  }
  return query;
}

std::string Fingerprint(const IssueListQuery& q) {
  return FilterFingerprint(absl::StrCat("status=", api::OptionalText(q.status), "|priority=", api::OptionalText(q.priority),
                                        "|category=", api::OptionalText(q.category), "|property=", q.property_id,
                                        "|room=", q.room_number));
}

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
  sql.text = absl::StrCat(kIssueSelect, where.ToSql(), " ORDER BY i.created_at DESC, i.id DESC");
  sql.text += db::Limit(sql, q.page_size);
  return sql;
}

}  // namespace hotel::maintenance
