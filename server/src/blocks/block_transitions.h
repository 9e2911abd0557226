// The daily pass of room blocks: when a property's local date turns, the rooms whose
// OUT_OF_ORDER blocks start or end that day change (Room.available flips), each once, whatever
// number of replicas run the pass (apply_room_block_transitions, migration 0017). Runs in the
// background every interval; ApplyOnce takes the instant to apply, so tests choose the date.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/metric_registry.h"
#include "common/periodic_task.h"
#include "db/pool.h"

namespace hotel::blocks {

// What a replica's passes did, for its metrics: summed over the replicas, rooms_changed
// counts each start or end once.
struct RoomBlockTransitionCounts {
  std::atomic<int64_t> passes{0};         // passes that ran to the end (idle ones included)
  std::atomic<int64_t> failed_passes{0};  // passes that failed (the next one applies what they did not)
  std::atomic<int64_t> rooms_changed{0};  // rooms whose Room.available the passes flipped
};

class RoomBlockTransitions {
 public:
  // ready says whether to run now (the schema is migrated and the database up).
  RoomBlockTransitions(db::ConnectionPool& pool, absl::Duration interval, std::function<bool()> ready = nullptr)
      : pool_(pool), task_("room block transitions failed", interval, std::move(ready), [this] {
          auto changed = ApplyOnce(absl::Now());
          if (changed.ok()) counts_.rooms_changed.fetch_add(*changed, std::memory_order_relaxed);
          (changed.ok() ? counts_.passes : counts_.failed_passes).fetch_add(1, std::memory_order_relaxed);
          return changed.status();
        }) {}
  RoomBlockTransitions(const RoomBlockTransitions&) = delete;
  RoomBlockTransitions& operator=(const RoomBlockTransitions&) = delete;

  void Start() { task_.Start(); }
  void Stop() { task_.Stop(); }
  // Applies the dates of instant at; the number of rooms changed (0 when every date was applied).
  absl::StatusOr<int64_t> ApplyOnce(absl::Time at);
  // The background passes by result, and the rooms they changed.
  void RegisterMetrics(MetricRegistry& metrics) const;

 private:
  db::ConnectionPool& pool_;
  RoomBlockTransitionCounts counts_;
  PeriodicTask task_;
};

}  // namespace hotel::blocks
