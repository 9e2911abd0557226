// Moves the rollup deltas that issue and schedule writes append (migration 0009) into the rollup
// tables, in the background, so readers have few deltas left to add. Figures never depend on it:
// readers add whatever is not folded yet. One fold runs at a time across all server replicas
// (fold_rollup_deltas() takes an advisory lock and returns at once when another holds it).
#pragma once

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/periodic_task.h"
#include "db/pool.h"

namespace hotel::stats {

class RollupFolder {
 public:
  // ready says whether to fold now (the schema is migrated and the database up); by default always.
  RollupFolder(db::ConnectionPool& pool, absl::Duration interval, std::function<bool()> ready = nullptr)
      : pool_(pool), task_("rollup fold failed", interval, std::move(ready), [this] { return FoldOnce().status(); }) {}
  RollupFolder(const RollupFolder&) = delete;
  RollupFolder& operator=(const RollupFolder&) = delete;

  void Start() { task_.Start(); }
  void Stop() { task_.Stop(); }
  // Folds once now; the number of delta rows moved (0 when another fold was running).
  absl::StatusOr<int64_t> FoldOnce();

 private:
  db::ConnectionPool& pool_;
  PeriodicTask task_;
};

}  // namespace hotel::stats
