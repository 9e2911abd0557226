#include "issues/issue_request.h"

#include <regex>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/idempotency.h"
#include "api/identifiers.h"
#include "api/paging.h"
#include "api/request_fields.h"
#include "common/page_token.h"
#include "common/text_fields.h"
#include "issues/issue_sql.h"

namespace hotel::issues {

using hotel::v1::Issue;

absl::Duration ResolutionTarget(Issue::Priority priority) {
  switch (priority) {
    case Issue::URGENT:
      return absl::Hours(4);
    case Issue::HIGH:
      return absl::Hours(24);
    case Issue::LOW:
      return absl::Hours(168);
    default:
      return absl::Hours(72);  // MEDIUM
  }
}

absl::StatusOr<NewIssue> ValidateCreateIssue(const hotel::v1::CreateIssueRequest& request) {
  FieldErrors errors;
  NewIssue out;
  if (auto s = api::ReadRoomTarget(request, "every issue belongs to a room of a property", out, errors); !s.ok())
    return s;
  out.title = api::Text("title", request.title(), api::kMaxTitleLength, true, errors);
  out.description = api::Text("description", request.description(), api::kMaxTextLength, false, errors);
  out.category = api::RequiredEnumField<Issue::Category>("category", request.category(), errors);
  Issue::Priority priority = Issue::MEDIUM;
  if (auto name = api::EnumField<Issue::Priority>("priority", request.priority(), errors)) {
    Issue::Priority_Parse(*name, &priority);
  }
  out.priority = Issue::Priority_Name(priority);
  out.resolution_target_seconds = absl::ToInt64Seconds(ResolutionTarget(priority));
  out.reported_by = api::Text("reported_by", request.reported_by(), api::kMaxNameLength, true, errors);
  out.assignee = api::Text("assignee", request.assignee(), api::kMaxNameLength, false, errors);
  out.take_room_out_of_order = request.take_room_out_of_order();
  out.allow_occupied = request.allow_occupied();
  out.return_condition =
      api::EnumField<hotel::v1::RoomHousekeeping::Condition>("return_condition", request.return_condition(), errors)
          .value_or("DIRTY");
  return api::WithRequestId(request, std::move(out), errors);
}

absl::StatusOr<IssueListQuery> ParseListIssues(const hotel::v1::ListIssuesRequest& request) {
  FieldErrors errors;
  IssueListQuery query;
  query.status = api::EnumField<Issue::Status>("status", request.status(), errors);
  query.priority = api::EnumField<Issue::Priority>("priority", request.priority(), errors);
  query.category = api::EnumField<Issue::Category>("category", request.category(), errors);
  if (auto s = api::ReadListScope(request, query, errors); !s.ok()) return s;
  if (auto s = api::ApplyPaging(request, "issues", {2, 0, 1}, Fingerprint(query), query, errors); !s.ok()) return s;
  return query;
}

absl::StatusOr<std::vector<std::string>> ParseBatchGetIssues(const hotel::v1::BatchGetIssuesRequest& request) {
  std::vector<std::string> ids;
  for (const std::string& id : request.ids()) ids.push_back(absl::AsciiStrToLower(id));
  FieldErrors errors;
  api::CheckBatchKeys("ids", ids, api::ValidateUuid, errors);
  if (!errors.empty()) return errors.ToStatus();
  return ids;
}

std::string Fingerprint(const IssueListQuery& q) {
  return FilterFingerprint(
      absl::StrCat("status=", api::OptionalText(q.status), "|priority=", api::OptionalText(q.priority),
                   "|category=", api::OptionalText(q.category), "|property=", q.property_id, "|room=", q.room_number));
}

}  // namespace hotel::issues
