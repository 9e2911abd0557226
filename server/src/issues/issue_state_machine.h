// The issue status machine (docs/maintenance.md): which status may follow which, and what a
// transition needs. Pure functions, unit-tested over every pair.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hotel/v1/maintenance.pb.h"

namespace hotel::issues {

using IssueStatus = hotel::v1::Issue::Status;

// Every real status (not STATUS_UNSPECIFIED), in declaration order.
const std::vector<IssueStatus>& AllIssueStatuses();
// The statuses `from` may move to, in declaration order; empty for final statuses.
const std::vector<IssueStatus>& AllowedTransitions(IssueStatus from);
bool IsAllowedTransition(IssueStatus from, IssueStatus to);
// OPEN, IN_PROGRESS and ON_HOLD: the issue still needs work (and may hold its room).
bool IsOpenStatus(IssueStatus status);
// ON_HOLD and CANCELLED must say why.
bool NeedsReason(IssueStatus to);

// OK, FAILED_PRECONDITION (reason INVALID_TRANSITION) for a refused pair, or INVALID_ARGUMENT
// naming `reason` (reason REASON_REQUIRED) when the target status needs a reason and none is given.
absl::Status CheckTransition(IssueStatus from, IssueStatus to, absl::string_view reason);

}  // namespace hotel::issues
