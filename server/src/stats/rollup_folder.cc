#include "stats/rollup_folder.h"

#include <string>

#include "sql/stats.h"

namespace hotel::stats {

absl::StatusOr<int64_t> RollupFolder::FoldOnce() {
  int64_t moved = 0;
  // kRead: a fold is one transaction, so running it again on a fresh connection is safe.
  absl::Status status = pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    // The statement timeout is for requests. A fold after a bulk load (a million deltas) takes
    // longer; cut off, it would roll back and start over forever while the backlog grows.
    txn.exec("SET LOCAL statement_timeout = 0");
    moved = session.Exec(txn, {std::string(sql::stats::kFoldRollupDeltas), {}})[0]["moved"].as<int64_t>();
    txn.commit();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return moved;
}

}  // namespace hotel::stats
