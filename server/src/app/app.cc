#include "app/app.h"

#include <grpcpp/health_check_service_interface.h>

#include <chrono>

#include "absl/strings/str_cat.h"
#include "app/services_table.h"
#include "app/start_order.h"
#include "common/listen_address.h"
#include "common/log.h"
#include "db/migrations.h"

namespace hotel::app {

App::App(const Settings& settings) : parts_(settings) {}

// The replicas' checker stops before the pools and services go.
App::~App() {
  if (parts_.databases.replicas) parts_.databases.replicas->Stop();
}

absl::Status App::Start() {
  return RunStartOrder({
      .migrate = [this] { return Migrate(); },
      .start_change_feed = [this] { return parts_.areas.change_hub.StartFromHead(); },
      .listen =
          [this] {
            auto listening = Listen(parts_);
            if (!listening.ok()) return listening.status();
            listening_ = *std::move(listening);
            return absl::OkStatus();
          },
      .start_workers = [this] { StartWorkers(); },
  });
}

// With the schema owner's pool, migrations run under an advisory lock and grant the runtime role
// its privileges; the database was reached, so it counts as up until the monitor's first check.
absl::Status App::Migrate() {
  Databases& db = parts_.databases;
  auto version = db::PrepareSchema(db.pool, db.owner_pool(), db::EmbeddedMigrations());
  if (!version.ok()) {
    return absl::Status(version.status().code(), absl::StrCat("migrations failed: ", version.status().message()));
  }
  parts_.calls.readiness.MarkStarted(*version);
  parts_.calls.readiness.SetDatabaseOk(true);
  LogInfo("schema ready", {{"schema_version", *version}});
  return absl::OkStatus();
}

void App::StartWorkers() {
  grpc::HealthCheckServiceInterface* health = listening_.server->GetHealthCheckService();
  monitor_ = std::make_unique<health::HealthMonitor>(parts_.databases.pool, parts_.databases.probe_pool,
                                                     parts_.calls.readiness, health, HealthNames(),
                                                     parts_.settings.config.health_interval);
  if (parts_.databases.replicas) parts_.databases.replicas->Start();
  monitor_->Start();
  parts_.passes.rollup_folder.Start();
  parts_.passes.block_transitions.Start();
  parts_.passes.housekeeping_day_turn.Start();
  parts_.areas.webhook_sender.Start();
  freed_memory_.Start();
  // The orchestrator's liveness probe: SERVING for as long as the process runs, so a database
  // outage (which makes "" NOT_SERVING) never gets pods restarted.
  health->SetServingStatus("liveness", true);
}

std::string App::address() const { return BoundAddress(parts_.settings.config.listen, listening_.port); }

void App::Drain() {
  parts_.calls.readiness.StartDraining();
  if (monitor_) monitor_->Drain();
}

void App::Stop() {
  freed_memory_.Stop();
  parts_.passes.rollup_folder.Stop();
  parts_.passes.block_transitions.Stop();
  parts_.passes.housekeeping_day_turn.Stop();
  parts_.areas.webhook_sender.Stop();  // in-flight deliveries finish (bounded by webhook_timeout) and are recorded
  parts_.areas.change_hub.Stop();      // ends every watch with UNAVAILABLE, so draining does not wait for them
  if (!listening_.server) return;
  listening_.server->GetHealthCheckService()->Shutdown();
  listening_.server->Shutdown(std::chrono::system_clock::now() +
                              absl::ToChronoMilliseconds(parts_.settings.config.shutdown_grace));
}

void App::Wait() {
  if (listening_.server) listening_.server->Wait();
}

absl::Status MigrateOnly(const Config& config) {
  db::ConnectionPool pool(db::PoolOptions::FromConfig(config, config.pool_size));
  std::optional<db::ConnectionPool> owner = MigrationPoolOf(config);
  auto version = db::PrepareSchema(pool, owner ? &*owner : nullptr, db::EmbeddedMigrations());
  if (!version.ok()) {
    LogError("migration failed", {{"error", std::string(version.status().message())}});
    return version.status();
  }
  LogInfo("schema ready", {{"schema_version", *version}});
  return absl::OkStatus();
}

}  // namespace hotel::app
