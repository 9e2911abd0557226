#include "changes/change_repository.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "common/change_cursor.h"
#include "db/sql.h"
#include "sql/changes.h"

namespace hotel::changes {
namespace {

// Runs a statement of the form SELECT f(...) AS result returning one bigint, in its own transaction.
absl::StatusOr<int64_t> RunMaintenance(db::ConnectionPool& pool, const db::SqlQuery& query) {
  int64_t result = 0;
  // kRead: one transaction, so running it again on a fresh connection is safe.
  absl::Status status = pool.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    // Request timeouts do not apply: a first prune of a large log must not be cut off forever.
    txn.exec("SET LOCAL statement_timeout = 0");
    result = session.Exec(txn, query)[0]["result"].as<int64_t>();
    txn.commit();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

}  // namespace

absl::StatusOr<ChangePage> ChangeRepository::Read(int64_t after, int64_t upto, const ChangeFilter& filter, int limit,
                                                  hotel::v1::ChangeView view) {
  ChangePage page;
  absl::Status status = pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    page.changes.clear();
    pqxx::nontransaction txn(session.connection());
    const db::SqlQuery query{std::string(sql::changes::kListChanges),
                             {absl::StrCat(after), absl::StrCat(upto), db::TextArrayLiteral(filter.resource_types),
                              filter.property_id, absl::StrCat(limit), ViewReadsResource(view) ? "true" : "false",
                              ViewReadsPrevious(view) ? "true" : "false", filter.room_changes}};
    const pqxx::result rows = session.Exec(txn, query);
    page.head = rows[0][change_columns::kHead].as<int64_t>();
    page.pruned_through = rows[0][change_columns::kPrunedThrough].as<int64_t>();
    page.after_known = rows[0][change_columns::kAfterKnown].as<bool>();
    page.wal_position = static_cast<uint64_t>(rows[0][change_columns::kWalPosition].as<int64_t>());
    for (const auto& row : rows) {
      if (!row[change_columns::kSeq].is_null()) page.changes.push_back(ReadChangeRecord(row));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return page;
}

absl::StatusOr<int64_t> ChangeRepository::Head() {
  constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
  auto page = Read(kEnd, kEnd, ChangeFilter{}, 0, hotel::v1::CHANGE_VIEW_BASIC);
  if (!page.ok()) return page.status();
  return page->head;
}

absl::Status ChangeRepository::List(const ChangeQuery& query, hotel::v1::ListChangesResponse* out) {
  // Without a cursor: from the oldest change kept (those below pruned_through are gone).
  const int64_t after = query.after.value_or(0);
  auto page = Read(after, std::numeric_limits<int64_t>::max(), query.filter, query.page_size, query.view);
  if (!page.ok()) return page.status();
  if (query.after) {
    if (auto s = CheckCursorKept(after, page->pruned_through, page->after_known); !s.ok()) return s;
  }
  for (const auto& record : page->changes) {
    if (auto s = ToChangeProto(record, query.view, out->add_data()); !s.ok()) return s;
  }
  int64_t next = std::max(after, page->head);
  if (static_cast<int>(page->changes.size()) == query.page_size && !page->changes.empty()) {
    next = page->changes.back().seq;
  }
  out->set_next_cursor(EncodeChangeCursor(next));
  return absl::OkStatus();
}

absl::StatusOr<SequencerRun> ChangeRepository::Sequence() {
  // A batch is a short statement under the session's statement_timeout, so it needs no transaction
  // of its own (one round trip: the hub runs it on every poll); a backlog goes in later calls.
  constexpr int kSequenceBatch = 10000;
  SequencerRun run;
  absl::Status status = pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    const pqxx::row row =
        session.Exec(txn, {std::string(sql::changes::kSequenceChanges), {absl::StrCat(kSequenceBatch)}})[0];
    run.moved = row["moved"].as<int64_t>();
    run.head = row["head"].as<int64_t>();
    run.wal_position = static_cast<uint64_t>(row["wal_position"].as<int64_t>());
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return run;
}

absl::StatusOr<int64_t> ChangeRepository::Prune(absl::Duration retention, int batch) {
  return RunMaintenance(pool_,
                        {std::string(sql::changes::kPruneChangeLog),
                         {absl::StrCat(absl::ToInt64Milliseconds(retention), " milliseconds"), absl::StrCat(batch)}});
}

}  // namespace hotel::changes
