// The server as one object: built from its settings (app/components.h), started in its order
// (app/start_order.h), drained and stopped on a signal. main.cc is only these calls.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "app/components.h"
#include "app/grpc_server.h"
#include "app/settings.h"
#include "common/freed_memory.h"
#include "health/health_monitor.h"

namespace hotel::app {

class App {
 public:
  // Builds every part; opens no port and starts no work.
  explicit App(const Settings& settings);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Migrations, the change feed's first read, the port, the workers (app/start_order.h). On an
  // error nothing of what comes after it has started, and the port is not open.
  absl::Status Start();
  // host:port the server listens on (its real port when the config asked for port 0).
  std::string address() const;

  // On SIGTERM: readiness fails at once while everything is still served, as load balancers take
  // a second or more to stop sending.
  void Drain();
  // Then: stops accepting, ends change-feed streams with UNAVAILABLE and the cursor to resume
  // from, and lets in-flight calls finish (up to shutdown_grace).
  void Stop();
  // Returns once the server has stopped.
  void Wait();

 private:
  absl::Status Migrate();
  void StartWorkers();

  Components parts_;
  // What idle connections, ended streams and refused floods held goes back to the system soon
  // after they close: checked every 2 s, returned once 4 MiB more than before lie free.
  FreedMemoryReturner freed_memory_{absl::Seconds(2), 4 << 20};
  ListeningServer listening_;
  std::unique_ptr<health::HealthMonitor> monitor_;  // needs the server's health service
};

// --migrate-only: applies migrations with the schema owner's pool, logging the outcome.
absl::Status MigrateOnly(const Config& config);

}  // namespace hotel::app
