#include "schedules/schedule_request.h"

#include <regex>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "api/idempotency.h"
#include "api/identifiers.h"
#include "api/paging.h"
#include "api/request_fields.h"
#include "common/dates.h"
#include "common/page_token.h"

namespace hotel::schedules {
namespace {

using hotel::v1::Schedule;

constexpr int kMaxIntervalCount = 1000;

}  // namespace

absl::StatusOr<NewSchedule> ValidateCreateSchedule(const hotel::v1::CreateScheduleRequest& request) {
  FieldErrors errors;
  NewSchedule out;
  if (auto s = api::ReadRoomTarget(request, "room numbers repeat across properties", out, errors); !s.ok()) return s;
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
  if (starts) {
    out.starts_on = FormatDate(*starts);
    out.next_due_on = out.starts_on;
  }
  return api::WithRequestId(request, std::move(out), errors);
}

absl::StatusOr<ScheduleListQuery> ParseListSchedules(const hotel::v1::ListSchedulesRequest& request) {
  FieldErrors errors;
  ScheduleListQuery query;
  if (auto s = api::ReadListScope(request, query, errors); !s.ok()) return s;
  query.equipment_id = api::OptionalUuid("equipment_id", request.equipment_id(), errors);
  if (request.has_overdue()) query.overdue = request.overdue();
  if (request.has_active()) query.active = request.active();
  if (auto s = api::ApplyPaging(request, "schedules", {4, 2, 3}, Fingerprint(query), query, errors); !s.ok()) return s;
  return query;
}

std::string Fingerprint(const ScheduleListQuery& q) {
  return FilterFingerprint(absl::StrCat("property=", q.property_id, "|room=", q.room_number,
                                        "|equipment=", q.equipment_id, "|overdue=", api::OptionalBool(q.overdue),
                                        "|active=", api::OptionalBool(q.active)));
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
  return api::WithRequestId(request, std::move(out), errors);
}

}  // namespace hotel::schedules
