#include "app/components.h"

#include <thread>

#include "app/services_table.h"
#include "common/log.h"
#include "common/tracing.h"

namespace hotel::app {
namespace {

// The request pool: it empties the room cache after each write (before the client hears back),
// and with replicas, sends read calls' reads there first.
db::PoolOptions RequestPoolOf(const Config& config, std::function<void()> after_write, db::ReadReplicas* replicas) {
  db::PoolOptions options = db::PoolOptions::FromConfig(config, config.pool_size);
  options.after_write = std::move(after_write);
  if (replicas != nullptr) {
    options.read_elsewhere = [replicas](const CallContext* call,
                                        const std::function<absl::Status(db::Session&)>& work) {
      return replicas->Run(call, work);
    };
    options.record_commit_position = true;
  }
  return options;
}

std::optional<db::ReadReplicas> ReplicasOf(const Config& config) {
  if (config.database_read_url.empty()) return std::nullopt;
  return std::optional<db::ReadReplicas>(std::in_place, db::ReadReplicaOptions::FromConfig(config));
}

// A render takes a core for a second or more and must not take the slots of the calls that
// read: renders are admitted like calls, on their own limit, and refused when it is full.
api::AdmissionOptions RendersOf(const Config& config) {
  api::AdmissionOptions options;
  options.limit = config.image_render_limit > 0 ? config.image_render_limit
                                                : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  options.queue = config.image_render_queue;
  options.queue_timeout = config.image_render_queue_timeout;
  options.probe_threads = 0;
  options.stream_threads = 0;
  return options;
}

// The hub's polls are also the read replicas' samples of the primary's position.
changes::ChangeHubOptions HubOf(const Config& config, db::ReadReplicas* replicas) {
  changes::ChangeHubOptions options = changes::ChangeHubOptions::FromConfig(config);
  if (replicas != nullptr) {
    options.polled = [replicas](int64_t head, uint64_t wal) { replicas->AddSample(head, wal); };
  }
  return options;
}

}  // namespace

std::optional<db::ConnectionPool> MigrationPoolOf(const Config& config) {
  if (config.migration_database_url.empty()) return std::nullopt;
  db::PoolOptions options = db::PoolOptions::FromConfig(config, 1);
  options.url = config.migration_database_url;
  options.statement_timeout = absl::Minutes(10);  // an index build may take a while
  return std::optional<db::ConnectionPool>(std::in_place, std::move(options));
}

Tracing::Tracing(const std::optional<OtlpOptions>& options) {
  if (!options) return;
  exporter_ = std::make_unique<OtlpExporter>(*options);
  InstallTracing(exporter_.get(), options->sampler_ratio);
  LogInfo("exporting traces", {{"url", options->traces_url}, {"sampler_ratio", options->sampler_ratio}});
}

Tracing::~Tracing() { InstallTracing(nullptr, 0); }

Databases::Databases(const Config& config)
    : cache_rooms(config.room_cache_size > 0),
      room_cache(config.room_cache_size),
      replicas(ReplicasOf(config)),
      pool(RequestPoolOf(config, cache_rooms ? std::function<void()>([this] { room_cache.InvalidateAll(); }) : nullptr,
                         replicas ? &*replicas : nullptr)),
      migration_pool(MigrationPoolOf(config)),
      probe_pool(db::PoolOptions::FromConfig(config, 2)),
      change_pool(db::PoolOptions::FromConfig(config, 1)),
      webhook_pool(db::PoolOptions::FromConfig(config, config.webhook_senders + 1)) {
  // Keeps room_cache enabled only while it hears every change made by anyone.
  if (cache_rooms) {
    room_changes.emplace(
        config.database_url, "room_data_changed", [this] { room_cache.InvalidateAll(); },
        [this](bool listening) { room_cache.SetEnabled(listening); });
  }
}

Calls::Calls(const Config& config)
    : admission(api::AdmissionOptions::FromConfig(config)),
      renders(RendersOf(config)),
      runner(readiness, admission, api::CallRunnerOptions::FromConfig(config)) {}

Areas::Areas(const Settings& settings, Databases& db, Calls& calls)
    : room_repository(db.pool, settings.config.cdn_base_url, db.cache_rooms ? &db.room_cache : nullptr),
      image_repository(db.pool, settings.config.cdn_base_url),
      image_files(db.pool),
      image_ingestion(image_repository, image_files, *settings.image_store),
      image_uploads(image_ingestion, calls.runner, calls.renders),
      change_log(db.change_pool),
      change_repository(db.pool),
      webhook_repository(db.pool, change_repository),
      webhook_delivery_repository(db.webhook_pool, change_log),
      change_hub(change_log, HubOf(settings.config, db.replicas ? &*db.replicas : nullptr),
                 [&calls] { return calls.Serving(); }),
      webhook_sender(webhook_delivery_repository, webhooks::SenderOptions::FromConfig(settings.config),
                     [&calls] { return calls.Serving() && !calls.readiness.draining(); }) {}

Passes::Passes(const Config& config, Databases& db, const Calls& calls)
    : rollup_folder(db.pool, config.rollup_fold_interval, [&calls] { return calls.Serving(); }),
      block_transitions(db.pool, config.block_transition_interval, [&calls] { return calls.Serving(); }),
      housekeeping_day_turn(db.pool, config.block_transition_interval, [&calls] { return calls.Serving(); }) {}

Components::Components(const Settings& settings)
    : settings(settings),
      tracing(settings.tracing),
      databases(settings.config),
      calls(settings.config),
      areas(settings, databases, calls),
      passes(settings.config, databases, calls),
      reflection(ServedNames()) {
  for (const ServiceRow& row : ServicesTable()) services.push_back(row.build(*this));
  // What /metrics shows besides every call's count and latency (the RPC observer's).
  metrics.AddPool("main", &databases.pool);
  metrics.AddPool("health", &databases.probe_pool);
  metrics.SetAdmission(&calls.admission);
  metrics.AddGauge("hotel_server_database_up", "Whether the last health check reached the database (1) or not (0).",
                   [this] { return calls.readiness.database_ok() ? 1 : 0; });
  if (databases.replicas) databases.replicas->RegisterMetrics(metrics);
  areas.change_hub.RegisterMetrics(metrics);
  areas.webhook_sender.RegisterMetrics(metrics);
  passes.block_transitions.RegisterMetrics(metrics);
  passes.housekeeping_day_turn.RegisterMetrics(metrics);
  if (tracing.exporter() != nullptr) tracing.exporter()->RegisterMetrics(metrics);
}

}  // namespace hotel::app
