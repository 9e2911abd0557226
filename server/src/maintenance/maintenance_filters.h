// Pure request validation and SQL building of the maintenance area: creates, list filters with
// keyset pages, the schedule completion decision. No I/O here: every function is unit-tested.
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
#include "maintenance/due_dates.h"

namespace hotel::maintenance {

// The resolution target of a priority (Issue.resolve_by = created_at + target).
absl::Duration ResolutionTarget(hotel::v1::Issue::Priority priority);

// ---- Equipment ------------------------------------------------------------------------------

struct NewEquipment {
  std::string property_id;
  std::string room_number;
  std::string name;
  std::string type;
  std::string manufacturer;
  std::string model;
  std::string serial_number;
  std::string installed_on;         // YYYY-MM-DD or ""
  std::string warranty_expires_on;  // YYYY-MM-DD or ""
  std::string status;               // enum name
  std::string notes;
  std::string request_id;
  std::string request_hash;
};
absl::StatusOr<NewEquipment> ValidateCreateEquipment(const hotel::v1::CreateEquipmentRequest& request);

struct EquipmentListQuery {
  std::string property_id;
  std::string room_number;
  std::optional<std::string> status;
  int page_size = 0;
  std::vector<std::string> after;  // keyset: created_at micros, id
};
absl::StatusOr<EquipmentListQuery> ParseListEquipment(const hotel::v1::ListEquipmentRequest& request);
std::string Fingerprint(const EquipmentListQuery& query);
db::SqlQuery BuildListEquipmentSql(const EquipmentListQuery& query);

// ---- Schedules ------------------------------------------------------------------------------

struct NewSchedule {
  std::string property_id;
  std::string room_number;
  std::string equipment_id;  // "" for none
  std::string task;
  std::string interval_unit;
  int interval_count = 0;
  std::string starts_on;
  std::string ends_on;  // "" for none
  std::string basis;
  std::string next_due_on;
  std::string request_id;
  std::string request_hash;
};
absl::StatusOr<NewSchedule> ValidateCreateSchedule(const hotel::v1::CreateScheduleRequest& request);

struct ScheduleListQuery {
  std::string property_id;
  std::string room_number;
  std::string equipment_id;
  std::optional<bool> overdue;
  std::optional<bool> active;
  int page_size = 0;
  std::vector<std::string> after;  // keyset: property_id, room_number, created_at micros, id
};
absl::StatusOr<ScheduleListQuery> ParseListSchedules(const hotel::v1::ListSchedulesRequest& request);
std::string Fingerprint(const ScheduleListQuery& query);
db::SqlQuery BuildListSchedulesSql(const ScheduleListQuery& query);

// A validated COMPLETE action.
struct CompletionInput {
  std::string completed_by;
  std::string notes;
  std::optional<absl::Time> completed_at;  // unset: now
  std::optional<absl::CivilDay> expected_due_on;
  std::string request_id;
  std::string request_hash;
};
absl::StatusOr<CompletionInput> ValidateScheduleAction(const hotel::v1::ApplyScheduleActionRequest& request);

// The locked schedule a completion applies to.
struct ScheduleState {
  bool active = true;
  ScheduleRule rule;
  absl::CivilDay next_due_on;
  std::optional<absl::CivilDay> ends_on;
  std::optional<absl::Time> last_completed_at;
  std::string time_zone;
};

struct CompletionDecision {
  absl::Time completed_at;
  absl::CivilDay due_on;        // the occurrence completed
  absl::CivilDay completed_on;  // local date of completed_at
  absl::CivilDay next_due_on;
  bool late = false;
  int days_late = 0;
  bool still_active = true;  // false once next_due_on passes ends_on
};

// Decides a completion: FAILED_PRECONDITION SCHEDULE_INACTIVE for an ended schedule,
// INVALID_ARGUMENT for completed_at in the future (more than 5 minutes after now), ABORTED
// DUE_DATE_MISMATCH when expected_due_on is not the current occurrence, ABORTED
// ALREADY_COMPLETED when no expected_due_on is given and the schedule was already completed on
// the same local day (a double submission).
absl::StatusOr<CompletionDecision> DecideCompletion(const ScheduleState& schedule, const CompletionInput& input,
                                                    absl::Time now);

// ---- Issues ---------------------------------------------------------------------------------

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
db::SqlQuery BuildListIssuesSql(const IssueListQuery& query);

}  // namespace hotel::maintenance
