// The daily pass of room blocks: when a property's local date turns, the rooms whose
// OUT_OF_ORDER blocks start or end that day change (Room.available flips), each once, whatever
// number of replicas run the pass (apply_room_block_transitions, migration 0017). Runs in the
// background every interval; ApplyOnce takes the instant to apply, so tests choose the date.
#pragma once

#include <functional>

#include "absl/time/time.h"
#include "db/daily_pass.h"
#include "db/pool.h"

namespace hotel::blocks {

class RoomBlockTransitions : public db::DailyPass {
 public:
  // ready says whether to run now (the schema is migrated and the database up).
  RoomBlockTransitions(db::ConnectionPool& pool, absl::Duration interval, std::function<bool()> ready = nullptr);
};

}  // namespace hotel::blocks
