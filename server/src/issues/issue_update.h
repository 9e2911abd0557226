// Planning of an issue update (PATCH /issues/{id}): applies the fields named by the update mask
// to the current issue, checks the etag and the status machine, and lists the timeline entries
// the change must write. Pure: the repository loads the issue under a row lock, asks for a plan,
// and writes it in the same transaction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hotel/v1/maintenance.pb.h"

namespace hotel::issues {

struct PlannedEvent {
  hotel::v1::IssueEvent::Type type = hotel::v1::IssueEvent::TYPE_UNSPECIFIED;
  std::string field;
  std::string from;
  std::string to;
  std::string note;
};

enum class RoomChange { kNone, kTake, kRelease };
enum class ResolvedAtChange { kKeep, kSet, kClear };

struct IssueUpdatePlan {
  hotel::v1::Issue updated;          // the current issue with the changes applied
  std::vector<PlannedEvent> events;  // in order; room events are added by the repository
  std::string actor;
  bool changed = false;  // false: nothing to write (e.g. only the etag or unchanged values)
  ResolvedAtChange resolved_at = ResolvedAtChange::kKeep;
  bool first_response = false;     // a status change away from OPEN or a comment
  bool equipment_changed = false;  // the repository checks the new equipment is in the room
  RoomChange room = RoomChange::kNone;
  int64_t resolution_target_seconds = 0;  // for resolve_by = created_at + target
};

// The fields of an issue an update mask may name, and what happens to each: see UpdateIssueRequest.
// An empty mask means every non-default field of patch (gRPC clients without a mask).
std::vector<std::string> ImpliedUpdateMask(const hotel::v1::Issue& patch);

// Errors: INVALID_ARGUMENT naming each bad field (unknown mask paths name update_mask), ABORTED
// ETAG_MISMATCH for a stale etag (body etag or if_match), FAILED_PRECONDITION INVALID_TRANSITION
// for a refused status change, INVALID_ARGUMENT REASON_REQUIRED, FAILED_PRECONDITION
// ISSUE_NOT_OPEN when a closed issue would hold its room.
absl::StatusOr<IssueUpdatePlan> PlanIssueUpdate(const hotel::v1::Issue& current, const hotel::v1::Issue& patch,
                                                const std::vector<std::string>& mask, absl::string_view if_match);

}  // namespace hotel::issues
