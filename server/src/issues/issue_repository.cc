#include "issues/issue_repository.h"

#include "absl/strings/str_cat.h"
#include "api/idempotency.h"
#include "api/paging.h"
#include "api/request_fields.h"
#include "common/errors.h"
#include "db/existence.h"
#include "db/sql.h"
#include "housekeeping/housekeeping_repository.h"
#include "issues/issue_sql.h"
#include "issues/issue_state_machine.h"
#include "issues/issue_update.h"
#include "sql/issues.h"

namespace hotel::issues {
namespace {

using hotel::v1::Issue;
using hotel::v1::IssueEvent;
using Snapshot = pqxx::transaction<pqxx::repeatable_read, pqxx::read_only>;

// Lock order of every write (docs/performance.md, "Write path"): the issue's own row first
// (UPDATE/FOR UPDATE, or a new row nobody else sees), then its room (FOR NO KEY UPDATE, which
// the key-share locks of foreign-key checks do not conflict with), then appended rows (events).
// Rollups are never locked by a request: triggers append deltas (migration 0009).

struct LockedRoom {
  bool out_of_order = false;
  bool retired = false;
};

// Locks the room row and returns whether it is out of order (and retired). Every change of a
// room's out-of-order state goes through this lock, so two issues never decide on a stale view;
// the statements after it see every commit made before the lock was granted (read committed).
// Retiring a room takes the same lock before it looks for holders, so an issue never holds a
// retired room.
LockedRoom LockRoom(db::Session& session, pqxx::transaction_base& txn, const Issue& issue) {
  auto rows = session.Exec(txn, {std::string(sql::issues::kLockRoom), {issue.property_id(), issue.room_number()}});
  if (rows.empty()) return {};
  return {rows[0]["out_of_order"].as<bool>(), rows[0]["retired"].as<bool>()};
}

// Runs a statement that records a room event on the issue's timeline, and adds it to out's.
void AppendRoomEvent(db::Session& session, pqxx::transaction_base& txn, absl::string_view statement,
                     std::vector<std::string> params, Issue* out) {
  ReadIssueEvent(session.Exec(txn, {std::string(statement), std::move(params)})[0], out->add_timeline());
}

// allow_occupied: the room is taken even while a guest is in it (a guest being moved).
absl::Status TakeRoom(db::Session& session, pqxx::transaction_base& txn, absl::string_view actor, bool allow_occupied,
                      Issue* issue) {
  const LockedRoom room = LockRoom(session, txn, *issue);
  if (room.retired) {
    return FailedPreconditionError(
        "ROOM_RETIRED", absl::StrCat("room ", issue->room_number(), " is retired; it cannot be taken out of order"));
  }
  if (auto s = housekeeping::CheckRoomNotOccupied(session, txn,
                                                  {issue->property_id(), issue->room_number(), "", "", allow_occupied});
      !s.ok()) {
    return s;
  }
  if (room.out_of_order) {
    AppendRoomEvent(session, txn, sql::issues::kJoinRoomHolders, {issue->id(), std::string(actor)}, issue);
    return absl::OkStatus();
  }
  AppendRoomEvent(session, txn, sql::issues::kTakeRoom,
                  {issue->property_id(), issue->room_number(), absl::StrCat("Maintenance issue: ", issue->title()),
                   issue->id(), std::string(actor)},
                  issue);
  return absl::OkStatus();
}

void ReleaseRoom(db::Session& session, pqxx::transaction_base& txn, absl::string_view actor, Issue* issue) {
  LockRoom(session, txn, *issue);
  AppendRoomEvent(session, txn, sql::issues::kReleaseRoom,
                  {issue->property_id(), issue->room_number(), issue->id(), std::string(actor)}, issue);
}

}  // namespace

absl::Status LoadIssue(db::Session& session, pqxx::transaction_base& txn, absl::string_view id, bool for_update,
                       Issue* out) {
  auto rows = session.Exec(
      txn,
      {std::string(for_update ? sql::issues::kSelectIssueForUpdate : sql::issues::kSelectIssue), {std::string(id)}});
  if (rows.empty()) return NotFoundError("ISSUE_NOT_FOUND", absl::StrCat("issue ", id, " does not exist"));
  out->Clear();
  ReadIssue(rows[0], out);
  return absl::OkStatus();
}

void LoadTimeline(db::Session& session, pqxx::transaction_base& txn, absl::string_view id, Issue* out) {
  out->clear_timeline();
  for (const auto& row : session.Exec(txn, {std::string(sql::issues::kSelectTimeline), {std::string(id)}})) {
    ReadIssueEvent(row, out->add_timeline());
  }
}

absl::Status IssueRepository::Create(const NewIssue& in, Issue* out) {
  const db::SqlQuery insert{
      std::string(sql::issues::kInsertIssue),
      {in.property_id, in.room_number, in.equipment_id, in.title, in.description, in.category, in.priority,
       in.reported_by, in.assignee, absl::StrCat(in.resolution_target_seconds), in.request_id, in.request_hash,
       in.take_room_out_of_order ? "true" : "false", in.return_condition}};
  // Fills out with the new issue (true) or the one an earlier request with the same request_id
  // created (false).
  auto insert_issue = [&](db::Session& session, pqxx::transaction_base& txn) -> absl::StatusOr<bool> {
    out->Clear();
    auto created = api::InsertOnce(
        session, txn, insert, sql::issues::kFindIssueRequest, in.request_id, in.request_hash,
        [&] { return db::CheckRoomTarget(session, txn, in.property_id, in.room_number, in.equipment_id); });
    if (!created.ok()) return created.status();
    if (created->rows.empty()) {
      if (auto s = LoadIssue(session, txn, created->existing_id, false, out); !s.ok()) return s;
      LoadTimeline(session, txn, out->id(), out);
      return false;
    }
    ReadIssue(created->rows[0], out);
    ReadIssueEvent(created->rows[0], out->add_timeline(), kIssueColumnCount);
    return true;
  };
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    if (!in.take_room_out_of_order) {
      // The insert is the whole write: one statement, committed on its own.
      pqxx::nontransaction txn(session.connection());
      return insert_issue(session, txn).status();
    }
    pqxx::work txn(session.connection());
    auto inserted = insert_issue(session, txn);
    if (!inserted.ok() || !*inserted) return inserted.status();
    if (auto s = TakeRoom(session, txn, in.reported_by, in.allow_occupied, out); !s.ok()) return s;
    session.Commit(txn);
    return absl::OkStatus();
  });
}

absl::Status IssueRepository::List(const IssueListQuery& query, hotel::v1::ListIssuesResponse* out) {
  return api::ListPage(pool_, BuildListIssuesSql(query), query.page_size, "issues", Fingerprint(query),
                       query.property_id, query.room_number, out, ReadIssue, IssuePageKey);
}

absl::Status IssueRepository::Get(absl::string_view id, Issue* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    Snapshot txn(session.connection());
    if (auto s = LoadIssue(session, txn, id, false, out); !s.ok()) return s;
    LoadTimeline(session, txn, id, out);
    return absl::OkStatus();
  });
}

absl::Status IssueRepository::BatchGet(const std::vector<std::string>& ids, hotel::v1::BatchGetIssuesResponse* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    pqxx::nontransaction txn(session.connection());
    auto rows = session.Exec(txn, {std::string(sql::issues::kSelectIssuesById), {db::TextArrayLiteral(ids)}});
    if (rows.size() < ids.size()) {
      std::vector<std::string> found;
      for (const auto& row : rows) found.push_back(row[issue_columns::kId].c_str());
      return NotFoundError("ISSUE_NOT_FOUND", db::DoNotExist("issue", db::MissingKeys(ids, found)));
    }
    out->clear_issues();
    for (const auto& row : rows) ReadIssue(row, out->add_issues());
    return absl::OkStatus();
  });
}

absl::Status IssueRepository::Update(absl::string_view id, const Issue& patch, const std::vector<std::string>& mask,
                                     absl::string_view if_match, Issue* out) {
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    pqxx::work txn(session.connection());
    Issue current;
    if (auto s = LoadIssue(session, txn, id, true, &current); !s.ok()) return s;
    auto plan = PlanIssueUpdate(current, patch, mask, if_match);
    if (!plan.ok()) return plan.status();
    if (!plan->changed) {
      *out = current;
      LoadTimeline(session, txn, id, out);
      return absl::OkStatus();
    }
    const Issue& next = plan->updated;
    if (plan->equipment_changed) {
      if (auto s = db::CheckEquipmentInRoom(session, txn, next.equipment_id(), next.property_id(), next.room_number());
          !s.ok()) {
        return s;
      }
    }
    // The row and its timeline entries in one statement; the events go in as parallel arrays.
    std::vector<std::string> types, fields, froms, tos, notes;
    for (const auto& event : plan->events) {
      types.push_back(IssueEvent::Type_Name(event.type));
      fields.push_back(event.field);
      froms.push_back(event.from);
      tos.push_back(event.to);
      notes.push_back(event.note);
    }
    const char* resolved = plan->resolved_at == ResolvedAtChange::kSet     ? "set"
                           : plan->resolved_at == ResolvedAtChange::kClear ? "clear"
                                                                           : "keep";
    const db::SqlQuery update{
        std::string(sql::issues::kUpdateIssue),
        {std::string(id), next.title(), next.description(), Issue::Category_Name(next.category()),
         Issue::Priority_Name(next.priority()), Issue::Status_Name(next.status()), next.reason(), next.assignee(),
         next.equipment_id(), next.take_room_out_of_order() ? "true" : "false", plan->actor, resolved,
         plan->first_response ? "true" : "false", absl::StrCat(plan->resolution_target_seconds),
         db::TextArrayLiteral(types), db::TextArrayLiteral(fields), db::TextArrayLiteral(froms),
         db::TextArrayLiteral(tos), db::TextArrayLiteral(notes)}};
    auto rows = session.Exec(txn, update);
    out->Clear();
    ReadIssue(rows[0], out);
    // The timeline up to and including this update's events, then the room's event.
    LoadTimeline(session, txn, id, out);
    if (plan->room == RoomChange::kTake) {
      if (auto s = TakeRoom(session, txn, plan->actor, patch.allow_occupied(), out); !s.ok()) return s;
    }
    if (plan->room == RoomChange::kRelease) ReleaseRoom(session, txn, plan->actor, out);
    session.Commit(txn);
    return absl::OkStatus();
  });
}

void ReadRoomIssues(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                    absl::string_view number, bool open, int limit,
                    google::protobuf::RepeatedPtrField<hotel::v1::Issue>* out) {
  const db::SqlQuery sql{std::string(open ? sql::issues::kSelectRoomOpenIssues : sql::issues::kSelectRoomClosedIssues),
                         {std::string(property_id), std::string(number), absl::StrCat(limit)}};
  for (const auto& row : session.Exec(txn, sql)) ReadIssue(row, out->Add());
}

}  // namespace hotel::issues
