// A pass over the database that applies what a property's local date turning does (the room
// blocks' starts and ends, the housekeeping day turn), each date once whatever number of replicas
// run it: the guarantee is the statement's (an SQL function taking the instant, recording the
// dates it applied, returning the rooms it changed). Runs in the background every interval;
// ApplyOnce takes the instant to apply, so tests choose the date.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/metric_registry.h"
#include "common/periodic_task.h"
#include "db/pool.h"

namespace hotel::db {

// The pass's metric families: runs by result, and the rooms it changed.
struct DailyPassMetrics {
  std::string passes_name;
  std::string passes_help;
  std::string rooms_changed_name;
  std::string rooms_changed_help;
};

class DailyPass {
 public:
  // statement takes $1, the instant in epoch microseconds, and answers one row with `changed`.
  // ready says whether to run now (the schema is migrated and the database up).
  DailyPass(ConnectionPool& pool, std::string statement, std::string failure_message, DailyPassMetrics metrics,
            absl::Duration interval, std::function<bool()> ready);
  DailyPass(const DailyPass&) = delete;
  DailyPass& operator=(const DailyPass&) = delete;

  void Start() { task_.Start(); }
  void Stop() { task_.Stop(); }
  // Applies the dates of instant at; the number of rooms changed (0 when every date was applied).
  absl::StatusOr<int64_t> ApplyOnce(absl::Time at);
  // The background passes by result, and the rooms they changed: summed over the replicas, each
  // room's change counts once.
  void RegisterMetrics(MetricRegistry& metrics) const;

 private:
  ConnectionPool& pool_;
  const std::string statement_;
  const DailyPassMetrics metrics_;
  std::atomic<int64_t> passes_{0};         // passes that ran to the end (idle ones included)
  std::atomic<int64_t> failed_passes_{0};  // passes that failed (the next one applies what they did not)
  std::atomic<int64_t> rooms_changed_{0};
  PeriodicTask task_;
};

}  // namespace hotel::db
