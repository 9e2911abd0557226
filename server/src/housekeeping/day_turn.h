// The housekeeping day turn (1.5.0, docs/housekeeping.md): when a property's local date turns,
// occupied rooms in order take the policy's occupied_nightly_condition, vacant ones its
// vacant_nightly_downgrade, and vacant rooms untouched for vacant_dirty_after_days go DIRTY: each
// change one history entry by "system" and one ROOM change, once whatever number of replicas run
// the pass (apply_housekeeping_day_turn, migration 0026). Runs beside the room blocks' daily pass,
// at its interval; ApplyOnce takes the instant to apply, so tests choose the date.
#pragma once

#include <functional>

#include "absl/time/time.h"
#include "db/daily_pass.h"
#include "db/pool.h"

namespace hotel::housekeeping {

class HousekeepingDayTurn : public db::DailyPass {
 public:
  // ready says whether to run now (the schema is migrated and the database up).
  HousekeepingDayTurn(db::ConnectionPool& pool, absl::Duration interval, std::function<bool()> ready = nullptr);
};

}  // namespace hotel::housekeeping
