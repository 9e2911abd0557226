#include "maintenance/maintenance_filters.h"

#include <regex>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/identifiers.h"
#include "common/page_token.h"
#include "common/text_fields.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
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

// Moves a field validator's violation (if any) into errors.
void Collect(const absl::Status& status, FieldErrors& errors) {
  for (auto& v : FieldViolations(status)) errors.Add(std::move(v.field), std::move(v.description));
}

// Trimmed text; a violation when required and empty, or longer than max characters (code points).
std::string Text(absl::string_view field, absl::string_view value, size_t max, bool required, FieldErrors& errors) {
  std::string out(absl::StripAsciiWhitespace(value));
  if (required && out.empty()) {
    errors.Add(std::string(field), "is required");
  } else if (CodePoints(out) > max) {
    errors.Add(std::string(field), absl::StrCat("must be at most ", max, " characters"));
  }
  return out;
}

// "" or a YYYY-MM-DD date.
std::string OptionalDate(absl::string_view field, absl::string_view value, FieldErrors& errors) {
  if (value.empty()) return "";
  if (!ParseDate(value)) {
    errors.Add(std::string(field), "must be a date in the form YYYY-MM-DD");
    return "";
  }
  return std::string(value);
}

// The names of an enum's values except the zero value, e.g. "LOW, MEDIUM, HIGH, URGENT".
std::string EnumNames(const google::protobuf::EnumDescriptor* descriptor) {
  std::vector<std::string> names;
  for (int i = 0; i < descriptor->value_count(); ++i) {
    if (descriptor->value(i)->number() != 0) names.push_back(descriptor->value(i)->name());
  }
  return absl::StrJoin(names, ", ");
}

std::string IssueStatusNames() { return EnumNames(Issue::Status_descriptor()); }
std::string PriorityNames() { return EnumNames(Issue::Priority_descriptor()); }
std::string CategoryNames() { return EnumNames(Issue::Category_descriptor()); }
std::string EquipmentStatusNames() { return EnumNames(Equipment::Status_descriptor()); }

// Validates a room reference: property_id (reason PROPERTY_ID_REQUIRED when missing) and number.
void CheckRoom(absl::string_view property_field, absl::string_view property_id, absl::string_view number_field,
               absl::string_view number, FieldErrors& errors) {
  if (!property_id.empty()) Collect(api::ValidatePropertyId(property_field, property_id), errors);
  Collect(api::ValidateRoomNumber(number_field, number), errors);
}

absl::Status PropertyIdRequired(absl::string_view why) {
  return InvalidField("property_id", absl::StrCat("is required: ", why), "PROPERTY_ID_REQUIRED");
}

absl::Status BadToken() {
  return InvalidField("page_token", "is not a token returned by this service", "INVALID_PAGE_TOKEN");
}

// Validates page_size and page_token against the query's fingerprint; `micros_at` names the key
// position holding a microsecond timestamp and `uuid_at` the one holding a UUID, so a forged
// token can never make a statement fail in PostgreSQL.
template <typename Query>
absl::Status ApplyPaging(int page_size, const std::string& page_token, absl::string_view list, size_t key_size,
                         size_t micros_at, size_t uuid_at, Query& query, FieldErrors& errors) {
  auto size = EffectivePageSize(page_size);
  if (!size.ok()) Collect(size.status(), errors);
  if (!errors.empty()) return errors.ToStatus();
  query.page_size = *size;
  auto token = DecodePageToken(page_token, list, Fingerprint(query));
  if (!token.ok()) return token.status();
  if (!token->key.empty()) {
    int64_t micros = 0;
    if (token->key.size() != key_size || !absl::SimpleAtoi(token->key[micros_at], &micros) ||
        !api::IsUuid(token->key[uuid_at])) {
      return BadToken();
    }
  }
  query.after = std::move(token->key);
  return absl::OkStatus();
}

std::string Limit(db::SqlQuery& sql, int page_size) {
  return absl::StrCat(" LIMIT ", sql.Bind(absl::StrCat(page_size + 1)), "::int");
}

std::string OptionalText(const std::optional<std::string>& v) { return v.value_or("-"); }
std::string OptionalBool(const std::optional<bool>& v) { return v ? (*v ? "true" : "false") : "-"; }

std::string TimestampFromKey(db::SqlQuery& sql, const std::string& micros) {
  return absl::StrCat("('epoch'::timestamptz + ", sql.Bind(micros), "::int8 * interval '1 microsecond')");
}

}  // namespace

void CheckRequestId(absl::string_view request_id, FieldErrors& errors) {
  static const std::regex kPattern("[A-Za-z0-9._:-]{1,100}");
  if (!request_id.empty() && !Matches(request_id, kPattern)) {
    errors.Add("request_id", "must be 1 to 100 letters, digits, '-', '_', '.' or ':' (a UUID is a good choice)");
  }
}

std::string RequestFingerprint(const google::protobuf::Message& request) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    request.SerializeToCodedStream(&coded);
  }
  return FilterFingerprint(absl::StrCat(request.GetTypeName(), "|", bytes));
}

absl::Status RequestIdReusedError() {
  return FailedPreconditionError("REQUEST_ID_REUSED",
                                 "request_id was already used for a different request; use a new request_id");
}

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
    return PropertyIdRequired("room numbers repeat across properties");
  }
  static const std::regex kType("[a-z][a-z0-9_]{1,39}");
  FieldErrors errors;
  NewEquipment out;
  CheckRoom("property_id", request.property_id(), "number", request.number(), errors);
  out.property_id = request.property_id();
  out.room_number = request.number();
  out.name = Text("name", request.name(), kMaxTitleLength, true, errors);
  out.type = std::string(absl::StripAsciiWhitespace(request.type()));
  if (out.type.empty()) {
    errors.Add("type", "is required");
  } else if (!Matches(out.type, kType)) {
    errors.Add("type", "must be a lower_snake_case code of 2 to 40 characters, e.g. air_conditioner");
  }
  out.manufacturer = Text("manufacturer", request.manufacturer(), kMaxNameLength, false, errors);
  out.model = Text("model", request.model(), kMaxNameLength, false, errors);
  out.serial_number = Text("serial_number", request.serial_number(), kMaxNameLength, false, errors);
  out.installed_on = OptionalDate("installed_on", request.installed_on(), errors);
  out.warranty_expires_on = OptionalDate("warranty_expires_on", request.warranty_expires_on(), errors);
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
  out.notes = Text("notes", request.notes(), kMaxTextLength, false, errors);
  CheckRequestId(request.request_id(), errors);
  if (!errors.empty()) return errors.ToStatus();
  out.request_id = request.request_id();
  out.request_hash = RequestFingerprint(request);
  return out;
}

absl::StatusOr<EquipmentListQuery> ParseListEquipment(const hotel::v1::ListEquipmentRequest& request) {
  if (request.property_id().empty()) return PropertyIdRequired("room numbers repeat across properties");
  FieldErrors errors;
  EquipmentListQuery query;
  CheckRoom("property_id", request.property_id(), "number", request.number(), errors);
  query.property_id = request.property_id();
  query.room_number = request.number();
  if (request.status() != Equipment::STATUS_UNSPECIFIED) {
    if (!Equipment::Status_IsValid(request.status())) {
      errors.Add("status", absl::StrCat("must be one of ", EquipmentStatusNames()));
    } else {
      query.status = Equipment::Status_Name(request.status());
    }
  }
  if (auto s = ApplyPaging(request.page_size(), request.page_token(), "equipment", 2, 0, 1, query, errors); !s.ok()) {
    return s;
  }
  return query;
}

std::string Fingerprint(const EquipmentListQuery& q) {
  return FilterFingerprint(absl::StrCat("property=", q.property_id, "|room=", q.room_number,
                                        "|status=", OptionalText(q.status)));
}

db::SqlQuery BuildListEquipmentSql(const EquipmentListQuery& q) {
  db::SqlQuery sql;
  db::WhereClause where;
  where.Add(absl::StrCat("e.property_id = ", sql.Bind(q.property_id)));
  where.Add(absl::StrCat("e.room_number = ", sql.Bind(q.room_number)));
  if (q.status) where.Add(absl::StrCat("e.status = ", sql.Bind(*q.status)));
  if (!q.after.empty()) {
    const std::string at = TimestampFromKey(sql, q.after[0]);
    const std::string id = sql.Bind(q.after[1]);
    where.Add(absl::StrCat("(e.created_at, e.id) > (", at, ", ", id, "::uuid)"));
  }
  sql.text = absl::StrCat(kEquipmentSelect, where.ToSql(), " ORDER BY e.created_at, e.id");
  sql.text += Limit(sql, q.page_size);
  return sql;
}

// ---- Schedules ------------------------------------------------------------------------------

absl::StatusOr<NewSchedule> ValidateCreateSchedule(const hotel::v1::CreateScheduleRequest& request) {
  if (request.property_id().empty()) return PropertyIdRequired("room numbers repeat across properties");
  FieldErrors errors;
  NewSchedule out;
  CheckRoom("property_id", request.property_id(), "room_number", request.room_number(), errors);
  out.property_id = request.property_id();
  out.room_number = request.room_number();
  if (!request.equipment_id().empty()) {
    Collect(api::ValidateUuid("equipment_id", request.equipment_id()), errors);
    out.equipment_id = absl::AsciiStrToLower(request.equipment_id());
  }
  out.task = Text("task", request.task(), kMaxTitleLength, true, errors);
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
  out.ends_on = OptionalDate("ends_on", request.ends_on(), errors);
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
  CheckRequestId(request.request_id(), errors);
  if (!errors.empty()) return errors.ToStatus();
  out.starts_on = FormatDate(*starts);
  out.next_due_on = out.starts_on;
  out.request_id = request.request_id();
  out.request_hash = RequestFingerprint(request);
  return out;
}

absl::StatusOr<ScheduleListQuery> ParseListSchedules(const hotel::v1::ListSchedulesRequest& request) {
  FieldErrors errors;
  ScheduleListQuery query;
  if (!request.property_id().empty()) Collect(api::ValidatePropertyId("property_id", request.property_id()), errors);
  query.property_id = request.property_id();
  if (!request.room_number().empty()) {
    if (request.property_id().empty()) return PropertyIdRequired("room_number is only unique within a property");
    Collect(api::ValidateRoomNumber("room_number", request.room_number()), errors);
    query.room_number = request.room_number();
  }
  if (!request.equipment_id().empty()) {
    Collect(api::ValidateUuid("equipment_id", request.equipment_id()), errors);
    query.equipment_id = absl::AsciiStrToLower(request.equipment_id());
  }
  if (request.has_overdue()) query.overdue = request.overdue();
  if (request.has_active()) query.active = request.active();
  if (auto s = ApplyPaging(request.page_size(), request.page_token(), "schedules", 4, 2, 3, query, errors); !s.ok()) {
    return s;
  }
  return query;
}

std::string Fingerprint(const ScheduleListQuery& q) {
  return FilterFingerprint(absl::StrCat("property=", q.property_id, "|room=", q.room_number,
                                        "|equipment=", q.equipment_id, "|overdue=", OptionalBool(q.overdue),
                                        "|active=", OptionalBool(q.active)));
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
    const std::string at = TimestampFromKey(sql, q.after[2]);
    const std::string id = sql.Bind(q.after[3]);
    where.Add(absl::StrCat("(s.property_id, s.room_number, s.created_at, s.id) > (", property, ", ", room, ", ", at,
                           ", ", id, "::uuid)"));
  }
  sql.text = absl::StrCat(kScheduleSelect, where.ToSql(), " ORDER BY s.property_id, s.room_number, s.created_at, s.id");
  sql.text += Limit(sql, q.page_size);
  return sql;
}

absl::StatusOr<CompletionInput> ValidateScheduleAction(const hotel::v1::ApplyScheduleActionRequest& request) {
  FieldErrors errors;
  Collect(api::ValidateUuid("id", request.id()), errors);
  if (request.action() == hotel::v1::ApplyScheduleActionRequest::ACTION_UNSPECIFIED) {
    errors.Add("action", "is required: COMPLETE");
  } else if (!hotel::v1::ApplyScheduleActionRequest::Action_IsValid(request.action())) {
    errors.Add("action", "must be COMPLETE");
  }
  CompletionInput out;
  out.completed_by = Text("completed_by", request.completed_by(), kMaxNameLength, true, errors);
  out.notes = Text("notes", request.notes(), kMaxTextLength, false, errors);
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
  CheckRequestId(request.request_id(), errors);
  if (!errors.empty()) return errors.ToStatus();
  out.request_id = request.request_id();
  out.request_hash = RequestFingerprint(request);
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
  if (request.property_id().empty()) return PropertyIdRequired("every issue belongs to a room of a property");
  FieldErrors errors;
  NewIssue out;
  CheckRoom("property_id", request.property_id(), "room_number", request.room_number(), errors);
  out.property_id = request.property_id();
  out.room_number = request.room_number();
  if (!request.equipment_id().empty()) {
    Collect(api::ValidateUuid("equipment_id", request.equipment_id()), errors);
    out.equipment_id = absl::AsciiStrToLower(request.equipment_id());
  }
  out.title = Text("title", request.title(), kMaxTitleLength, true, errors);
  out.description = Text("description", request.description(), kMaxTextLength, false, errors);
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
  out.reported_by = Text("reported_by", request.reported_by(), kMaxNameLength, true, errors);
  out.assignee = Text("assignee", request.assignee(), kMaxNameLength, false, errors);
  out.take_room_out_of_order = request.take_room_out_of_order();
  CheckRequestId(request.request_id(), errors);
  if (!errors.empty()) return errors.ToStatus();
  out.request_id = request.request_id();
  out.request_hash = RequestFingerprint(request);
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
  if (!request.property_id().empty()) Collect(api::ValidatePropertyId("property_id", request.property_id()), errors);
  query.property_id = request.property_id();
  if (!request.room_number().empty()) {
    if (request.property_id().empty()) return PropertyIdRequired("room_number is only unique within a property");
    Collect(api::ValidateRoomNumber("room_number", request.room_number()), errors);
    query.room_number = request.room_number();
  }
  if (auto s = ApplyPaging(request.page_size(), request.page_token(), "issues", 2, 0, 1, query, errors); !s.ok()) {
    return s;
  }
  return query;
}

std::string Fingerprint(const IssueListQuery& q) {
  return FilterFingerprint(absl::StrCat("status=", OptionalText(q.status), "|priority=", OptionalText(q.priority),
                                        "|category=", OptionalText(q.category), "|property=", q.property_id,
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
    const std::string at = TimestampFromKey(sql, q.after[0]);
    const std::string id = sql.Bind(q.after[1]);
    where.Add(absl::StrCat("(i.created_at, i.id) < (", at, ", ", id, "::uuid)"));
  }
  sql.text = absl::StrCat(kIssueSelect, where.ToSql(), " ORDER BY i.created_at DESC, i.id DESC");
  sql.text += Limit(sql, q.page_size);
  return sql;
}

}  // namespace hotel::maintenance
