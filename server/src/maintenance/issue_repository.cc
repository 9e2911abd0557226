#include "maintenance/issue_repository.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/errors.h"
#include "common/page_token.h"
#include "db/sql.h"
#include "maintenance/issue_state_machine.h"
#include "maintenance/issue_update.h"
#include "maintenance/maintenance_rows.h"
#include "rooms/room_repository.h"

namespace hotel::maintenance {
namespace {

using hotel::v1::Issue;
using hotel::v1::IssueEvent;
using Snapshot = pqxx::transaction<pqxx::repeatable_read, pqxx::read_only>;

void InsertEvent(db::Session& session, pqxx::transaction_base& txn, absl::string_view issue_id,
                 absl::string_view actor, const PlannedEvent& event) {
  db::SqlQuery sql;
  sql.text = absl::StrCat(
      "INSERT INTO issue_events (issue_id, actor, type, field, from_value, to_value, note) VALUES (",
      sql.Bind(std::string(issue_id)), "::uuid, ", sql.Bind(std::string(actor)), ", ",
      sql.Bind(IssueEvent::Type_Name(event.type)), ", ", sql.Bind(event.field), ", ", sql.Bind(event.from), ", ",
      sql.Bind(event.to), ", ", sql.Bind(event.note), ")");
  session.Exec(txn, sql);
}

// Locks the room row and returns whether it is out of order. Every change of a room's
// out-of-order state goes through this lock, so two issues never decide on a stale view.
bool LockRoom(db::Session& session, pqxx::transaction_base& txn, const Issue& issue) {
  db::SqlQuery sql;
  sql.text = absl::StrCat("SELECT out_of_order FROM rooms WHERE property_id = ", sql.Bind(issue.property_id()),
                          " AND number = ", sql.Bind(issue.room_number()), " FOR UPDATE");
  auto rows = session.Exec(txn, sql);
  return !rows.empty() && rows[0][0].as<bool>();
}

void TakeRoom(db::Session& session, pqxx::transaction_base& txn, const Issue& issue, absl::string_view actor) {
  std::string note;
  if (LockRoom(session, txn, issue)) {
    note = "Room was already out of order; this issue holds it too.";
  } else {
    db::SqlQuery sql;
    sql.text = absl::StrCat("UPDATE rooms SET out_of_order = true, out_of_order_reason = ",
                            sql.Bind(absl::StrCat("Maintenance issue: ", issue.title())),
                            ", out_of_order_since = now() WHERE property_id = ", sql.Bind(issue.property_id()),
                            " AND number = ", sql.Bind(issue.room_number()));
    session.Exec(txn, sql);
    note = "Room taken out of order.";
  }
  InsertEvent(session, txn, issue.id(), actor, {IssueEvent::ROOM_OUT_OF_ORDER, "", "false", "true", note});
}

void ReleaseRoom(db::Session& session, pqxx::transaction_base& txn, const Issue& issue, absl::string_view actor) {
  LockRoom(session, txn, issue);
  db::SqlQuery others;
  others.text = absl::StrCat("SELECT id::text FROM issues WHERE property_id = ", others.Bind(issue.property_id()),
                             " AND room_number = ", others.Bind(issue.room_number()),
                             " AND take_room_out_of_order AND id <> ", others.Bind(issue.id()),
                             "::uuid ORDER BY created_at LIMIT 1");
  auto holders = session.Exec(txn, others);
  std::string note;
  if (!holders.empty()) {
    note = absl::StrCat("Room stays out of order: issue ", holders[0][0].c_str(), " still holds it.");
  } else {
    db::SqlQuery sql;
    sql.text = absl::StrCat(
        "UPDATE rooms SET out_of_order = false, out_of_order_reason = '', out_of_order_since = NULL"
        " WHERE property_id = ", sql.Bind(issue.property_id()), " AND number = ", sql.Bind(issue.room_number()));
    session.Exec(txn, sql);
    note = "Room returned to service.";
  }
  InsertEvent(session, txn, issue.id(), actor, {IssueEvent::ROOM_BACK_IN_SERVICE, "", "true", "false", note});
}

// The issue created with request_id, if any: OK with *found set, or REQUEST_ID_REUSED.
absl::Status FindByRequestId(db::Session& session, pqxx::transaction_base& txn, const NewIssue& in, Issue* out,
                             bool* found) {
  *found = false;
  if (in.request_id.empty()) return absl::OkStatus();
  db::SqlQuery sql;
  sql.text = absl::StrCat("SELECT id::text, request_hash FROM issues WHERE request_id = ", sql.Bind(in.request_id));
  auto rows = session.Exec(txn, sql);
  if (rows.empty()) return absl::OkStatus();
  if (rows[0][1].c_str() != in.request_hash) return RequestIdReusedError();
  *found = true;
  if (auto s = LoadIssue(session, txn, rows[0][0].c_str(), false, out); !s.ok()) return s;
  LoadTimeline(session, txn, out->id(), out);
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckListScopeExists(db::Session& session, pqxx::transaction_base& txn,
                                  const std::string& property_id, const std::string& room_number) {
  if (!room_number.empty()) return CheckRoomExists(session, txn, property_id, room_number);
  return rooms::CheckPropertyExists(session, txn, property_id);
}

absl::Status CheckEquipmentInRoom(db::Session& session, pqxx::transaction_base& txn, absl::string_view equipment_id,
                                  absl::string_view property_id, absl::string_view number) {
  db::SqlQuery sql;
  sql.text = absl::StrCat("SELECT 1 FROM equipment WHERE id = ", sql.Bind(std::string(equipment_id)),
                          "::uuid AND property_id = ", sql.Bind(std::string(property_id)),
                          " AND room_number = ", sql.Bind(std::string(number)));
  if (session.Exec(txn, sql).empty()) {
    return NotFoundError("EQUIPMENT_NOT_FOUND", absl::StrCat("equipment ", equipment_id, " does not exist in room ",
                                                             number, " of property ", property_id));
  }
  return absl::OkStatus();
}

absl::Status LoadIssue(db::Session& session, pqxx::transaction_base& txn, absl::string_view id, bool for_update,
                       Issue* out) {
  db::SqlQuery sql;
  sql.text = absl::StrCat(kIssueSelect, " WHERE i.id = ", sql.Bind(std::string(id)), "::uuid",
                          for_update ? " FOR UPDATE" : "");
  auto rows = session.Exec(txn, sql);
  if (rows.empty()) return NotFoundError("ISSUE_NOT_FOUND", absl::StrCat("issue ", id, " does not exist"));
  out->Clear();
  ReadIssue(rows[0], out);
  return absl::OkStatus();
}

void LoadTimeline(db::Session& session, pqxx::transaction_base& txn, absl::string_view id, Issue* out) {
  db::SqlQuery sql;
  sql.text = absl::StrCat(kIssueEventSelect, " WHERE ev.issue_id = ", sql.Bind(std::string(id)),
                          "::uuid ORDER BY ev.seq");
  out->clear_timeline();
  for (const auto& row : session.Exec(txn, sql)) ReadIssueEvent(row, out->add_timeline());
}

absl::Status IssueRepository::Create(const NewIssue& in, Issue* out) {
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    pqxx::work txn(session.connection());
    bool found = false;
    if (auto s = FindByRequestId(session, txn, in, out, &found); !s.ok() || found) return s;
    if (auto s = CheckRoomExists(session, txn, in.property_id, in.room_number); !s.ok()) return s;
    if (!in.equipment_id.empty()) {
      if (auto s = CheckEquipmentInRoom(session, txn, in.equipment_id, in.property_id, in.room_number); !s.ok()) {
        return s;
      }
    }
    db::SqlQuery insert;
    insert.text = absl::StrCat(
        "INSERT INTO issues (property_id, room_number, equipment_id, title, description, category, priority,"
        " reported_by, assignee, updated_by, resolve_by, request_id, request_hash) VALUES (",
        insert.Bind(in.property_id), ", ", insert.Bind(in.room_number), ", NULLIF(", insert.Bind(in.equipment_id),
        ", '')::uuid, ", insert.Bind(in.title), ", ", insert.Bind(in.description), ", ", insert.Bind(in.category),
        ", ", insert.Bind(in.priority), ", ", insert.Bind(in.reported_by), ", ", insert.Bind(in.assignee), ", ",
        insert.Bind(in.reported_by), ", now() + ", insert.Bind(absl::StrCat(in.resolution_target_seconds)),
        "::int8 * interval '1 second', NULLIF(", insert.Bind(in.request_id), ", ''), NULLIF(",
        insert.Bind(in.request_hash), ", '')) ON CONFLICT (request_id) DO NOTHING RETURNING id::text");
    auto inserted = session.Exec(txn, insert);
    if (inserted.empty()) {
      // A concurrent request with the same request_id committed first: answer with its issue.
      if (auto s = FindByRequestId(session, txn, in, out, &found); !s.ok()) return s;
      if (!found) return AbortedError("CONCURRENT_UPDATE", "concurrent request; retry");
      return absl::OkStatus();
    }
    const std::string id = inserted[0][0].c_str();
    Issue issue;
    if (auto s = LoadIssue(session, txn, id, false, &issue); !s.ok()) return s;
    InsertEvent(session, txn, id, in.reported_by, {IssueEvent::CREATED, "", "", "OPEN", in.title});
    if (in.take_room_out_of_order) {
      db::SqlQuery hold;
      hold.text = absl::StrCat("UPDATE issues SET take_room_out_of_order = true WHERE id = ", hold.Bind(id), "::uuid");
      session.Exec(txn, hold);
      TakeRoom(session, txn, issue, in.reported_by);
    }
    if (auto s = LoadIssue(session, txn, id, false, out); !s.ok()) return s;
    LoadTimeline(session, txn, id, out);
    txn.commit();
    return absl::OkStatus();
  });
}

absl::Status IssueRepository::List(const IssueListQuery& query, hotel::v1::ListIssuesResponse* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    auto rows = session.Exec(txn, BuildListIssuesSql(query));
    if (rows.empty() && !query.property_id.empty()) {
      // An empty page may mean an unknown property or room; only then is the look-up needed.
      if (auto s = CheckListScopeExists(session, txn, query.property_id, query.room_number); !s.ok()) return s;
    }
    const int n = std::min<int>(rows.size(), query.page_size);
    for (int i = 0; i < n; ++i) ReadIssue(rows[i], out->add_data());
    if (static_cast<int>(rows.size()) > query.page_size) {
      out->set_next_page_token(EncodePageToken(
          {"issues", Fingerprint(query), {rows[n - 1][13].c_str(), rows[n - 1][0].c_str()}}));
    }
    return absl::OkStatus();
  });
}

absl::Status IssueRepository::Get(absl::string_view id, Issue* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    Snapshot txn(session.connection());
    if (auto s = LoadIssue(session, txn, id, false, out); !s.ok()) return s;
    LoadTimeline(session, txn, id, out);
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
      if (auto s = CheckEquipmentInRoom(session, txn, next.equipment_id(), next.property_id(), next.room_number());
          !s.ok()) {
        return s;
      }
    }
    const char* resolved = plan->resolved_at == ResolvedAtChange::kSet     ? "set"
                           : plan->resolved_at == ResolvedAtChange::kClear ? "clear"
                                                                            : "keep";
    db::SqlQuery sql;
    sql.text = absl::StrCat(
        "UPDATE issues SET title = ", sql.Bind(next.title()), ", description = ", sql.Bind(next.description()),
        ", category = ", sql.Bind(Issue::Category_Name(next.category())),
        ", priority = ", sql.Bind(Issue::Priority_Name(next.priority())),
        ", status = ", sql.Bind(Issue::Status_Name(next.status())), ", status_reason = ", sql.Bind(next.reason()),
        ", assignee = ", sql.Bind(next.assignee()), ", equipment_id = NULLIF(", sql.Bind(next.equipment_id()),
        ", '')::uuid, take_room_out_of_order = ", sql.Bind(next.take_room_out_of_order() ? "true" : "false"),
        "::bool, updated_by = ", sql.Bind(plan->actor), ", updated_at = now(), resolved_at = CASE ",
        sql.Bind(resolved), "::text WHEN 'set' THEN now() WHEN 'clear' THEN NULL ELSE resolved_at END,"
        " first_response_at = CASE WHEN ", sql.Bind(plan->first_response ? "true" : "false"),
        "::bool THEN coalesce(first_response_at, now()) ELSE first_response_at END,"
        " resolve_by = created_at + ", sql.Bind(absl::StrCat(plan->resolution_target_seconds)),
        "::int8 * interval '1 second', version = version + 1 WHERE id = ", sql.Bind(std::string(id)), "::uuid");
    session.Exec(txn, sql);
    for (const auto& event : plan->events) InsertEvent(session, txn, id, plan->actor, event);
    if (plan->room == RoomChange::kTake) TakeRoom(session, txn, next, plan->actor);
    if (plan->room == RoomChange::kRelease) ReleaseRoom(session, txn, next, plan->actor);
    if (auto s = LoadIssue(session, txn, id, false, out); !s.ok()) return s;
    LoadTimeline(session, txn, id, out);
    txn.commit();
    return absl::OkStatus();
  });
}

}  // namespace hotel::maintenance
