#include "issues/issue_state_machine.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/errors.h"

namespace hotel::issues {
namespace {

using hotel::v1::Issue;

}  // namespace

const std::vector<IssueStatus>& AllIssueStatuses() {
  static const std::vector<IssueStatus> kAll = {Issue::OPEN,     Issue::IN_PROGRESS, Issue::ON_HOLD,
                                                Issue::RESOLVED, Issue::CLOSED,      Issue::CANCELLED};
  return kAll;
}

const std::vector<IssueStatus>& AllowedTransitions(IssueStatus from) {
  static const std::vector<IssueStatus> kNone;
  static const std::vector<IssueStatus> kFromOpen = {Issue::IN_PROGRESS, Issue::ON_HOLD, Issue::RESOLVED,
                                                     Issue::CANCELLED};
  static const std::vector<IssueStatus> kFromInProgress = {Issue::ON_HOLD, Issue::RESOLVED};
  static const std::vector<IssueStatus> kFromOnHold = {Issue::IN_PROGRESS, Issue::CANCELLED};
  static const std::vector<IssueStatus> kFromResolved = {Issue::IN_PROGRESS, Issue::CLOSED};
  switch (from) {
    case Issue::OPEN:
      return kFromOpen;
    case Issue::IN_PROGRESS:
      return kFromInProgress;
    case Issue::ON_HOLD:
      return kFromOnHold;
    case Issue::RESOLVED:
      return kFromResolved;
    default:
      return kNone;  // CLOSED, CANCELLED are final
  }
}

bool IsAllowedTransition(IssueStatus from, IssueStatus to) {
  for (IssueStatus s : AllowedTransitions(from)) {
    if (s == to) return true;
  }
  return false;
}

bool IsOpenStatus(IssueStatus status) {
  return status == Issue::OPEN || status == Issue::IN_PROGRESS || status == Issue::ON_HOLD;
}

bool NeedsReason(IssueStatus to) { return to == Issue::ON_HOLD || to == Issue::CANCELLED; }

absl::Status CheckTransition(IssueStatus from, IssueStatus to, absl::string_view reason) {
  if (!IsAllowedTransition(from, to)) {
    std::vector<std::string> allowed;
    for (IssueStatus s : AllowedTransitions(from)) allowed.push_back(Issue::Status_Name(s));
    return FailedPreconditionError(
        "INVALID_TRANSITION",
        absl::StrCat("an issue cannot move from ", Issue::Status_Name(from), " to ", Issue::Status_Name(to),
                     allowed.empty() ? std::string("; it is final")
                                     : absl::StrCat("; allowed: ", absl::StrJoin(allowed, ", "))));
  }
  if (NeedsReason(to) && absl::StripAsciiWhitespace(reason).empty()) {
    return InvalidField("reason", absl::StrCat("is required when moving an issue to ", Issue::Status_Name(to)),
                        "REASON_REQUIRED");
  }
  return absl::OkStatus();
}

}  // namespace hotel::issues
