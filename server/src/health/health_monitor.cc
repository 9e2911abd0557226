#include "health/health_monitor.h"

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "health/health_service.h"

namespace hotel::health {

HealthMonitor::HealthMonitor(db::ConnectionPool& main_pool, db::ConnectionPool& probe_pool, api::Readiness& readiness,
                             grpc::HealthCheckServiceInterface* health, std::vector<std::string> services,
                             absl::Duration interval)
    : main_pool_(main_pool),
      probe_pool_(probe_pool),
      readiness_(readiness),
      health_(health),
      services_(std::move(services)),
      interval_(interval) {}

HealthMonitor::~HealthMonitor() { Stop(); }

void HealthMonitor::Start() {
  Check();  // on the caller's thread: its state is published before anything relies on it
  thread_ = std::thread([this] {
    while (!stop_.WaitForNotificationWithTimeout(interval_)) Check();
  });
}

void HealthMonitor::Stop() {
  if (!stop_.HasBeenNotified()) stop_.Notify();
  if (thread_.joinable()) thread_.join();
}

void HealthMonitor::Drain() {
  Stop();          // the loop is done, so Publish runs on one thread still
  Publish(false);  // published only now: pings no longer race with it
}

void HealthMonitor::Publish(bool serving) {
  if (published_ && serving == last_serving_) return;
  published_ = true;
  last_serving_ = serving;
  for (const auto& service : services_) health_->SetServingStatus(service, serving);
  LogInfo(serving ? "serving" : "not serving");
}

void HealthMonitor::Check() {
  const bool database_ok = PingDatabase(probe_pool_).ok();
  if (!database_ok && readiness_.database_ok()) {
    // Connections opened before an outage are dead; drop them instead of failing on each.
    main_pool_.DropIdle();
  }
  if (database_ok && readiness_.started()) {
    // A cold pool makes a fresh server's first burst open its connections all at once, and calls
    // are refused meanwhile (issue 40); a failure here only leaves them to the calls.
    if (auto filled = main_pool_.Fill(); !filled.ok()) {
      LogWarning("database pool not filled", {{"error", std::string(filled.message())}});
    }
  }
  readiness_.SetDatabaseOk(database_ok);
  Publish(database_ok && readiness_.started());
}

}  // namespace hotel::health
