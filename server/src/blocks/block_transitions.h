// The daily pass of room blocks: when a property's local date turns, the rooms whose
// OUT_OF_ORDER blocks start or end that day change (Room.available flips), each once, whatever
// number of replicas run the pass (apply_room_block_transitions, migration 0017). Runs in the
// background every interval; ApplyOnce takes the instant to apply, so tests choose the date.
#pragma once

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/periodic_task.h"
#include "db/pool.h"

namespace hotel::blocks {

class RoomBlockTransitions {
 public:
  // ready says whether to run now (the schema is migrated and the database up).
  RoomBlockTransitions(db::ConnectionPool& pool, absl::Duration interval, std::function<bool()> ready = nullptr)
      : pool_(pool), task_("room block transitions failed", interval, std::move(ready), [this] {
          return ApplyOnce(absl::Now()).status();
        }) {}
  RoomBlockTransitions(const RoomBlockTransitions&) = delete;
  RoomBlockTransitions& operator=(const RoomBlockTransitions&) = delete;

  void Start() { task_.Start(); }
  void Stop() { task_.Stop(); }
  // Applies the dates of instant at; the number of rooms changed (0 when every date was applied).
  absl::StatusOr<int64_t> ApplyOnce(absl::Time at);

 private:
  db::ConnectionPool& pool_;
  PeriodicTask task_;
};

}  // namespace hotel::blocks
