// Issue requests validated into commands and queries: the create, the list filters with their
// keyset pages. Pure: every function is unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "api/idempotency.h"
#include "common/errors.h"
#include "db/sql.h"
#include "google/protobuf/message.h"
#include "hotel/v1/maintenance.pb.h"

namespace hotel::issues {

// The resolution target of a priority (Issue.resolve_by = created_at + target).
absl::Duration ResolutionTarget(hotel::v1::Issue::Priority priority);

struct NewIssue {
  std::string property_id;
  std::string room_number;
  std::string equipment_id;  // "" for none
  std::string title;
  std::string description;
  std::string category;
  std::string priority;
  std::string reported_by;
  std::string assignee;
  bool take_room_out_of_order = false;
  std::string return_condition;  // DIRTY | CLEAN | INSPECTED
  bool allow_occupied = false;   // taken out of order even while a guest is in the room
  int64_t resolution_target_seconds = 0;
  std::string request_id;
  std::string request_hash;
};
absl::StatusOr<NewIssue> ValidateCreateIssue(const hotel::v1::CreateIssueRequest& request);

struct IssueListQuery {
  std::optional<std::string> status;
  std::optional<std::string> priority;
  std::optional<std::string> category;
  std::string property_id;
  std::string room_number;
  int page_size = 0;
  std::vector<std::string> after;  // keyset: created_at micros, id (descending)
};
absl::StatusOr<IssueListQuery> ParseListIssues(const hotel::v1::ListIssuesRequest& request);
std::string Fingerprint(const IssueListQuery& query);

// BatchGetIssues: the ids, lower-case, in the order asked (api::CheckBatchKeys).
absl::StatusOr<std::vector<std::string>> ParseBatchGetIssues(const hotel::v1::BatchGetIssuesRequest& request);

}  // namespace hotel::issues
