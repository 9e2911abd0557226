// What the server knows about its own readiness: start time, schema version, and whether
// the database answered the last health check. Written by the health monitor, read by
// every handler (through the call runner, api/call_runner.h).
#pragma once

#include <atomic>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace hotel::api {

class Readiness {
 public:
  Readiness() : started_at_(absl::Now()) {}

  absl::Time started_at() const { return started_at_; }
  bool started() const { return schema_version_.load() > 0; }
  int schema_version() const { return schema_version_.load(); }
  void MarkStarted(int schema_version) { schema_version_.store(schema_version); }

  bool database_ok() const { return database_ok_.load(); }
  void SetDatabaseOk(bool ok) { database_ok_.store(ok); }

  // Set on SIGTERM: readiness probes fail from then on while requests are still served.
  bool draining() const { return draining_.load(); }
  void StartDraining() { draining_.store(true); }

  // UNAVAILABLE until migrations are applied.
  absl::Status CheckStarted() const;

 private:
  const absl::Time started_at_;
  std::atomic<int> schema_version_{0};
  std::atomic<bool> database_ok_{false};
  std::atomic<bool> draining_{false};
};

}  // namespace hotel::api
