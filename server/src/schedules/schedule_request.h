// Schedule requests validated into commands (create, COMPLETE) and a query (list). Pure, unit-tested.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "hotel/v1/maintenance.pb.h"

namespace hotel::schedules {

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

}  // namespace hotel::schedules
