#include "schedules/schedule_repository.h"

#include "absl/strings/str_cat.h"
#include "api/idempotency.h"
#include "api/paging.h"
#include "api/request_fields.h"
#include "common/errors.h"
#include "db/existence.h"
#include "db/sql.h"
#include "schedules/schedule_sql.h"
#include "sql/schedules.h"

namespace hotel::schedules {
namespace {

using hotel::v1::Schedule;

absl::Status LoadSchedule(db::Session& session, pqxx::transaction_base& txn, absl::string_view id, Schedule* out) {
  auto rows = session.Exec(txn, {std::string(sql::schedules::kSelectSchedule), {std::string(id)}});
  if (rows.empty()) return NotFoundError("SCHEDULE_NOT_FOUND", absl::StrCat("schedule ", id, " does not exist"));
  ReadSchedule(rows[0], out);
  return absl::OkStatus();
}

absl::Status LoadCompletionResponse(db::Session& session, pqxx::transaction_base& txn, const std::string& completion_id,
                                    hotel::v1::ApplyScheduleActionResponse* out) {
  auto rows = session.Exec(txn, {std::string(sql::schedules::kSelectCompletion), {completion_id}});
  if (rows.empty()) return absl::InternalError("completion vanished");
  ReadCompletion(rows[0], out->mutable_completion());
  return LoadSchedule(session, txn, out->completion().schedule_id(), out->mutable_schedule());
}

}  // namespace

absl::Status ScheduleRepository::List(const ScheduleListQuery& query, hotel::v1::ListSchedulesResponse* out) {
  return api::ListPage(pool_, BuildListSchedulesSql(query), query.page_size, "schedules", Fingerprint(query),
                       query.property_id, query.room_number, out, ReadSchedule, SchedulePageKey);
}

absl::Status ScheduleRepository::Create(const NewSchedule& in, Schedule* out) {
  const db::SqlQuery insert{
      std::string(sql::schedules::kInsertSchedule),
      {in.property_id, in.room_number, in.equipment_id, in.task, in.interval_unit, absl::StrCat(in.interval_count),
       in.starts_on, in.ends_on, in.basis, in.next_due_on, in.request_id, in.request_hash}};
  return api::CreateOnce(
      pool_, insert, sql::schedules::kFindScheduleRequest, in.request_id, in.request_hash,
      [&](db::Session& session, pqxx::transaction_base& txn) {
        return db::CheckRoomTarget(session, txn, in.property_id, in.room_number, in.equipment_id);
      },
      [&](db::Session& session, pqxx::transaction_base& txn, const std::string& id) {
        return LoadSchedule(session, txn, id, out);
      });
}

absl::Status ScheduleRepository::Complete(absl::string_view schedule_id, const CompletionInput& input,
                                          hotel::v1::ApplyScheduleActionResponse* out) {
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    pqxx::work txn(session.connection());
    // The row lock serialises completions of one schedule: whoever comes second sees the first
    // one's result (READ COMMITTED takes a fresh snapshot for every statement after the lock).
    const db::SqlQuery lock{std::string(sql::schedules::kLockSchedule), {std::string(schedule_id)}};
    auto rows = session.Exec(txn, lock);
    if (rows.empty()) {
      return NotFoundError("SCHEDULE_NOT_FOUND", absl::StrCat("schedule ", schedule_id, " does not exist"));
    }
    std::string existing;
    if (auto s = api::FindRequest(session, txn, sql::schedules::kFindCompletionRequest, input.request_id,
                                  input.request_hash, &existing);
        !s.ok()) {
      return s;
    }
    if (!existing.empty()) return LoadCompletionResponse(session, txn, existing, out);

    const auto& row = rows[0];
    ScheduleState state;
    state.active = row[schedule_lock_columns::kActive].as<bool>();
    state.rule.unit = db::ParseEnum<Schedule::IntervalUnit>(row[schedule_lock_columns::kIntervalUnit].c_str());
    state.rule.interval_count = row[schedule_lock_columns::kIntervalCount].as<int>();
    state.rule.basis = db::ParseEnum<Schedule::Basis>(row[schedule_lock_columns::kBasis].c_str());
    state.rule.starts_on = *ParseDate(row[schedule_lock_columns::kStartsOn].c_str());
    state.next_due_on = *ParseDate(row[schedule_lock_columns::kNextDueOn].c_str());
    if (!row[schedule_lock_columns::kEndsOn].is_null() && *row[schedule_lock_columns::kEndsOn].c_str() != '\0')
      state.ends_on = ParseDate(row[schedule_lock_columns::kEndsOn].c_str());
    if (!row[schedule_lock_columns::kLastCompletedAtMicros].is_null())
      state.last_completed_at = absl::FromUnixMicros(row[schedule_lock_columns::kLastCompletedAtMicros].as<int64_t>());
    state.time_zone = row[schedule_lock_columns::kTimeZone].c_str();
    const absl::Time now = absl::FromUnixMicros(row[schedule_lock_columns::kNowMicros].as<int64_t>());

    auto decision = DecideCompletion(state, input, now);
    if (!decision.ok()) {
      // A mismatch because that very occurrence was completed meanwhile is a double completion.
      if (ErrorReason(decision.status()) == "DUE_DATE_MISMATCH") {
        const db::SqlQuery done{std::string(sql::schedules::kOccurrenceCompleted),
                                {std::string(schedule_id), FormatDate(*input.expected_due_on)}};
        if (!session.Exec(txn, done).empty()) {
          return AbortedError(
              "ALREADY_COMPLETED",
              absl::StrCat("the occurrence due on ", FormatDate(*input.expected_due_on),
                           " was already completed; the schedule is now due on ", FormatDate(state.next_due_on)));
        }
      }
      return decision.status();
    }
    const std::string completed_at = absl::StrCat(absl::ToUnixMicros(decision->completed_at));
    const db::SqlQuery insert{
        std::string(sql::schedules::kInsertCompletion),
        {std::string(schedule_id), FormatDate(decision->due_on), completed_at, FormatDate(decision->completed_on),
         input.completed_by, input.notes, decision->late ? "true" : "false", absl::StrCat(decision->days_late),
         FormatDate(decision->next_due_on), input.request_id, input.request_hash}};
    // Nothing inserted: the request_id was taken meanwhile by a completion of another schedule,
    // or (defence in depth) this occurrence already has a completion.
    auto inserted = api::InsertOnce(
        session, txn, insert, sql::schedules::kFindCompletionRequest, input.request_id, input.request_hash,
        [] { return AbortedError("ALREADY_COMPLETED", "this occurrence was already completed"); });
    if (!inserted.ok()) return inserted.status();
    if (inserted->rows.empty()) return LoadCompletionResponse(session, txn, inserted->existing_id, out);
    const db::SqlQuery update{std::string(sql::schedules::kAdvanceSchedule),
                              {std::string(schedule_id), FormatDate(decision->next_due_on), completed_at,
                               decision->still_active ? "true" : "false"}};
    session.Exec(txn, update);
    if (auto s = LoadCompletionResponse(session, txn, inserted->rows[0]["id"].c_str(), out); !s.ok()) return s;
    session.Commit(txn);
    return absl::OkStatus();
  });
}

int ReadRoomActiveSchedules(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                            absl::string_view number, int limit,
                            google::protobuf::RepeatedPtrField<hotel::v1::Schedule>* out) {
  const db::SqlQuery sql{std::string(sql::schedules::kSelectRoomActiveSchedules),
                         {std::string(property_id), std::string(number), absl::StrCat(limit)}};
  int overdue = 0;
  for (const auto& row : session.Exec(txn, sql)) {
    Schedule* schedule = out->Add();
    ReadSchedule(row, schedule);
    if (schedule->overdue()) ++overdue;
  }
  return overdue;
}

void ReadRoomRecentCompletions(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                               absl::string_view number, int limit,
                               google::protobuf::RepeatedPtrField<hotel::v1::ScheduleCompletion>* out) {
  const db::SqlQuery sql{std::string(sql::schedules::kSelectRoomRecentCompletions),
                         {std::string(property_id), std::string(number), absl::StrCat(limit)}};
  for (const auto& row : session.Exec(txn, sql)) ReadCompletion(row, out->Add());
}

}  // namespace hotel::schedules
