// Maintenance schedules in PostgreSQL. Creates are idempotent by request_id; completing a
// schedule locks its row, so concurrent or repeated completions of one occurrence
// produce one completion record (backed by a unique (schedule_id, due_on)).
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "db/pool.h"
#include "hotel/v1/maintenance.pb.h"
#include "schedules/schedule_completion.h"
#include "schedules/schedule_request.h"

namespace hotel::schedules {

class ScheduleRepository {
 public:
  explicit ScheduleRepository(db::ConnectionPool& pool) : pool_(pool) {}

  absl::Status List(const ScheduleListQuery& query, hotel::v1::ListSchedulesResponse* out);
  // NOT_FOUND for an unknown room or equipment not in that room.
  absl::Status Create(const NewSchedule& schedule, hotel::v1::Schedule* out);
  // NOT_FOUND SCHEDULE_NOT_FOUND; the errors of DecideCompletion.
  absl::Status Complete(absl::string_view schedule_id, const CompletionInput& input,
                        hotel::v1::ApplyScheduleActionResponse* out);

 private:
  db::ConnectionPool& pool_;
};

// The active schedules of one room, soonest due first, at most limit; returns how many are overdue.
int ReadRoomActiveSchedules(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                            absl::string_view number, int limit,
                            google::protobuf::RepeatedPtrField<hotel::v1::Schedule>* out);
// The latest completions of one room's schedules, newest first, at most limit.
void ReadRoomRecentCompletions(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                               absl::string_view number, int limit,
                               google::protobuf::RepeatedPtrField<hotel::v1::ScheduleCompletion>* out);

}  // namespace hotel::schedules
