// hotel-server: the Hotel Data Service's gRPC server.
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <malloc.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "api/call_runner.h"
#include "api/change_cursor_interceptor.h"
#include "api/invalid_utf8.h"
#include "api/server_reflection.h"
#include "blocks/block_repository.h"
#include "blocks/block_service.h"
#include "blocks/block_transitions.h"
#include "changes/change_hub.h"
#include "changes/change_repository.h"
#include "changes/change_service.h"
#include "common/config.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/token_seal.h"
#include "common/tracing.h"
#include "db/change_listener.h"
#include "db/migrations.h"
#include "db/pool.h"
#include "db/read_replicas.h"
#include "equipment/equipment_repository.h"
#include "equipment/equipment_service.h"
#include "health/health_monitor.h"
#include "health/health_service.h"
#include "images/image_repository.h"
#include "images/image_service.h"
#include "images/ingest/image_renderer.h"
#include "images/ingest/image_upload.h"
#include "images/ingest/object_store.h"
#include "issues/issue_repository.h"
#include "issues/issue_service.h"
#include "observability/metrics.h"
#include "observability/metrics_service.h"
#include "observability/otlp_exporter.h"
#include "observability/rpc_observer.h"
#include "rooms/room_repository.h"
#include "rooms/room_service.h"
#include "schedules/schedule_repository.h"
#include "schedules/schedule_service.h"
#include "stats/rollup_folder.h"
#include "stats/room_maintenance_service.h"
#include "stats/stats_repository.h"
#include "stats/stats_service.h"
#include "webhooks/webhook_repository.h"
#include "webhooks/webhook_sender.h"
#include "webhooks/webhook_service.h"
#include "webhooks/webhook_url.h"

namespace {

using hotel::Config;

// 1. Configuration: flags and environment, every value checked before anything starts.
struct Settings {
  Config config;
  hotel::webhooks::AllowList webhook_allow_list;
  // Where uploaded images' files go: IMAGE_STORE and its variables (images/ingest/object_store.h).
  std::unique_ptr<hotel::images::ObjectStore> image_store;
  std::optional<hotel::OtlpOptions> tracing;  // OpenTelemetry's OTEL_* variables; none: off
};

absl::StatusOr<Settings> LoadSettings(const std::vector<std::string>& args) {
  auto config = hotel::ParseConfig(args, [](const char* name) -> const char* { return std::getenv(name); });
  if (!config.ok()) return config.status();
  if (auto sealed = hotel::ConfigureTokenSeal(config->page_token_keys); !sealed.ok()) return sealed;
  auto webhook_allow_list = hotel::webhooks::AllowList::Parse(config->webhook_allowed_hosts);
  if (!webhook_allow_list.ok()) return webhook_allow_list.status();
  if (config->webhook_timeout >= config->webhook_lease) {
    return absl::InvalidArgumentError(
        "webhook_timeout must be below webhook_lease (a delivery must end within its lease)");
  }
  auto image_store = hotel::images::ObjectStoreFromEnvironment(".local/cdn");
  if (!image_store.ok()) return image_store.status();
  auto tracing = hotel::OtlpOptionsFromEnvironment([](const char* name) -> const char* { return std::getenv(name); });
  if (!tracing.ok()) return tracing.status();
  return Settings{*std::move(config), *std::move(webhook_allow_list), *std::move(image_store), *std::move(tracing)};
}

// 2b. Traces (docs/operations.md, "Tracing"): the exporter every span goes to, installed before
// anything can start one; at exit it is uninstalled, then flushes what is queued.
struct Tracing {
  explicit Tracing(const std::optional<hotel::OtlpOptions>& options) {
    if (!options) return;
    exporter = std::make_unique<hotel::OtlpExporter>(*options);
    hotel::InstallTracing(exporter.get(), options->sampler_ratio);
    hotel::LogInfo("exporting traces", {{"url", options->traces_url}, {"sampler_ratio", options->sampler_ratio}});
  }
  ~Tracing() { hotel::InstallTracing(nullptr, 0); }
  std::unique_ptr<hotel::OtlpExporter> exporter;
};

hotel::db::PoolOptions PoolOf(const Config& config, int size) {
  return {config.database_url, size, config.pool_acquire_timeout, config.connect_timeout, config.statement_timeout};
}

// 2. Migrations: applied under an advisory lock by the schema owner's pool (one connection,
// closed once they are done; requests never run on it). Also the whole of --migrate-only.
std::optional<hotel::db::ConnectionPool> MigrationPool(const Config& config) {
  if (config.migration_database_url.empty()) return std::nullopt;
  return std::optional<hotel::db::ConnectionPool>(
      std::in_place, hotel::db::PoolOptions{config.migration_database_url, 1, config.pool_acquire_timeout,
                                            config.connect_timeout, absl::Minutes(10)});
}

int MigrateOnly(const Config& config) {
  hotel::db::ConnectionPool pool(PoolOf(config, config.pool_size));
  std::optional<hotel::db::ConnectionPool> owner = MigrationPool(config);
  auto version = hotel::db::PrepareSchema(pool, owner ? &*owner : nullptr, hotel::db::EmbeddedMigrations());
  if (!version.ok()) {
    hotel::LogError("migration failed", {{"error", std::string(version.status().message())}});
    return 1;
  }
  hotel::LogInfo("schema ready", {{"schema_version", *version}});
  return 0;
}

// 3. Databases: the request pool (with the room cache it keeps honest), and small pools of their
// own for probes, the change feed and webhook deliveries, so none waits for requests.
// With DATABASE_READ_URL, the reads of read calls go to a replica recent enough for them
// (db/read_replicas.h) and every write answers its consistency token (docs/consistency.md).
std::optional<hotel::db::ReadReplicas> ReplicasOf(const Config& config,
                                                  std::function<std::optional<int64_t>()> feed_position) {
  if (config.database_read_url.empty()) return std::nullopt;
  hotel::db::ReadReplicaOptions options;
  options.url = config.database_read_url;
  // A read waits no longer than read_token_wait for a replica's connection: then the primary serves it.
  options.replicas = {"", config.pool_size, config.read_token_wait, config.connect_timeout, config.statement_timeout};
  options.max_lag = config.read_max_lag;
  options.token_wait = config.read_token_wait;
  options.feed_position = std::move(feed_position);
  return std::optional<hotel::db::ReadReplicas>(std::in_place, std::move(options));
}

hotel::db::PoolOptions RequestPoolOf(const Config& config, std::function<void()> after_write,
                                     hotel::db::ReadReplicas* replicas) {
  hotel::db::PoolOptions options{config.database_url,    config.pool_size,         config.pool_acquire_timeout,
                                 config.connect_timeout, config.statement_timeout, std::move(after_write)};
  if (replicas != nullptr) {
    options.read_elsewhere = [replicas](const std::function<absl::Status(hotel::db::Session&)>& work) {
      return replicas->Run(work);
    };
    options.record_commit_position = true;
  }
  return options;
}

struct Databases {
  explicit Databases(const Config& config)
      : cache_rooms(config.room_cache_size > 0),
        room_cache(config.room_cache_size),
        replicas(ReplicasOf(config, [this] { return feed_position ? feed_position() : std::nullopt; })),
        pool(RequestPoolOf(config,
                           cache_rooms ? std::function<void()>([this] { room_cache.InvalidateAll(); }) : nullptr,
                           replicas ? &*replicas : nullptr)),
        migration_pool(MigrationPool(config)),
        probe_pool(PoolOf(config, 2)),
        change_pool(PoolOf(config, 1)),
        webhook_pool(PoolOf(config, config.webhook_senders + 1)) {
    // Keeps room_cache enabled only while it hears every change made by anyone.
    if (cache_rooms) {
      room_changes.emplace(
          config.database_url, "room_data_changed", [this] { room_cache.InvalidateAll(); },
          [this](bool listening) { room_cache.SetEnabled(listening); });
    }
  }
  hotel::db::ConnectionPool* owner_pool() { return migration_pool ? &*migration_pool : nullptr; }

  const bool cache_rooms;
  hotel::rooms::RoomCache room_cache;
  // The change feed's position, for the replicas' floor: set once the hub exists, before they start.
  std::function<std::optional<int64_t>()> feed_position;
  std::optional<hotel::db::ReadReplicas> replicas;
  hotel::db::ConnectionPool pool;
  std::optional<hotel::db::ConnectionPool> migration_pool;
  hotel::db::ConnectionPool probe_pool;
  hotel::db::ConnectionPool change_pool;   // the change feed's poller, sequencer and pruner
  hotel::db::ConnectionPool webhook_pool;  // one connection per sender thread
  std::optional<hotel::db::ChangeListener> room_changes;
};

// 4. Calls: admission control and default deadlines for every call the call runner runs (health
// checks run on its probe threads, never shed; metrics and reflection answer from memory).
// Handler bodies run on admission's threads, one for each call that may be admitted or wait for
// admission; gRPC's own threads only receive calls, answer from memory and write
// (docs/decisions.md, "Threading model").
hotel::api::AdmissionOptions AdmissionOf(const Config& config) {
  hotel::api::AdmissionOptions options;
  options.limit = config.max_in_flight > 0 ? config.max_in_flight : 2 * config.pool_size;
  options.queue = config.admission_queue >= 0 ? config.admission_queue : 4 * options.limit;
  return options;
}

// Uploaded images are rendered on a pool of their own (a render takes a core for a second or more,
// and must not take the slots of the calls that read): admitted like calls, refused when full.
hotel::api::AdmissionOptions RendersOf(const Config& config) {
  hotel::api::AdmissionOptions options;
  options.limit = config.image_render_limit > 0 ? config.image_render_limit
                                                : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  options.queue = config.image_render_queue;
  options.queue_timeout = config.image_render_queue_timeout;
  options.probe_threads = 0;
  options.stream_threads = 0;
  return options;
}

struct Calls {
  explicit Calls(const Config& config)
      : admission(AdmissionOf(config)),
        renders(RendersOf(config)),
        runner(readiness, admission, {config.read_timeout, config.write_timeout, config.upload_timeout}) {}
  hotel::api::Readiness readiness;
  hotel::api::AdmissionControl admission;
  hotel::api::AdmissionControl renders;
  hotel::api::CallRunner runner;
};

// 5. Services: each area's repository and gRPC service, the change feed's hub and the webhook
// sender.
struct Services {
  Services(const Settings& settings, Databases& db, Calls& calls)
      : room_repository(db.pool, settings.config.cdn_base_url, db.cache_rooms ? &db.room_cache : nullptr),
        equipment_repository(db.pool),
        schedule_repository(db.pool),
        issue_repository(db.pool),
        room_block_repository(db.pool),
        stats_repository(db.pool),
        image_repository(db.pool, settings.config.cdn_base_url),
        image_files(db.pool),
        image_ingestion(image_repository, image_files, *settings.image_store),
        image_uploads(image_ingestion, calls.runner, calls.renders),
        change_log(db.change_pool),
        change_repository(db.pool),
        webhook_repository(db.pool, change_repository),
        webhook_delivery_repository(db.webhook_pool, change_log),
        change_hub(change_log, HubOf(settings.config, db.replicas ? &*db.replicas : nullptr),
                   [&calls] { return Serving(calls.readiness); }),
        webhook_sender(
            webhook_delivery_repository, SenderOf(settings.config),
            [&calls] { return Serving(calls.readiness) && !calls.readiness.draining(); },
            [this](hotel::webhooks::AttemptResult result, const hotel::webhooks::HttpResult&) {
              webhook_attempts[static_cast<int>(result)].fetch_add(1, std::memory_order_relaxed);
            }),
        room_service(room_repository, calls.runner),
        health_service(db.probe_pool, calls.readiness, calls.runner),
        equipment_service(equipment_repository, calls.runner),
        schedule_service(schedule_repository, calls.runner),
        issue_service(issue_repository, calls.runner),
        room_block_service(room_block_repository, calls.runner),
        maintenance_service(stats_repository, calls.runner),
        stats_service(stats_repository, calls.runner),
        image_service(image_repository, calls.runner, &image_uploads),
        change_service(change_repository, change_hub, calls.runner),
        // A ping answers within the request's own deadline (write_timeout, 10 s by default).
        webhook_service(webhook_repository, settings.webhook_allow_list,
                        {settings.config.webhook_connect_timeout,
                         std::min(settings.config.webhook_timeout, settings.config.write_timeout / 2)},
                        calls.runner) {}

  static bool Serving(const hotel::api::Readiness& readiness) { return readiness.started() && readiness.database_ok(); }

  // The hub's polls are also the read replicas' samples of the primary's position.
  static hotel::changes::ChangeHubOptions HubOf(const Config& config, hotel::db::ReadReplicas* replicas) {
    std::function<void(int64_t, uint64_t)> polled;
    if (replicas != nullptr) polled = [replicas](int64_t head, uint64_t wal) { replicas->AddSample(head, wal); };
    return {config.change_poll_interval,
            config.change_poll_interval * 4,
            config.change_retention,
            config.change_prune_interval,
            10000,
            config.change_max_watchers,
            config.change_max_watchers_per_client,
            static_cast<size_t>(config.change_watcher_buffer),
            config.change_heartbeat_interval,
            config.change_heartbeat_interval,
            std::move(polled)};
  }

  static hotel::webhooks::SenderOptions SenderOf(const Config& config) {
    char host_name[256] = {0};
    gethostname(host_name, sizeof(host_name) - 1);
    hotel::webhooks::RetryPolicy retry;
    retry.scale = config.webhook_retry_scale;
    return {config.webhook_senders,
            config.webhook_lease,
            config.webhook_poll_interval,
            {config.webhook_connect_timeout, config.webhook_timeout},
            retry,
            absl::StrCat(host_name, ":", getpid())};
  }

  hotel::rooms::RoomRepository room_repository;
  hotel::equipment::EquipmentRepository equipment_repository;
  hotel::schedules::ScheduleRepository schedule_repository;
  hotel::issues::IssueRepository issue_repository;
  hotel::blocks::RoomBlockRepository room_block_repository;
  hotel::stats::StatsRepository stats_repository;
  hotel::images::ImageRepository image_repository;
  hotel::images::ImageFileRepository image_files;
  hotel::images::ImageIngestion image_ingestion;
  hotel::images::ImageUploadService image_uploads;
  hotel::changes::ChangeRepository change_log;         // on the change feed's own pool
  hotel::changes::ChangeRepository change_repository;  // on the request pool
  hotel::webhooks::WebhookRepository webhook_repository;
  hotel::webhooks::WebhookRepository webhook_delivery_repository;    // on the senders' pool
  std::atomic<int64_t> webhook_attempts[4] = {0, 0, 0, 0};           // by hotel::webhooks::AttemptResult
  hotel::blocks::RoomBlockTransitionCounts block_transition_counts;  // the background workers' daily pass
  hotel::changes::ChangeHub change_hub;
  hotel::webhooks::WebhookSender webhook_sender;
  hotel::rooms::RoomServiceImpl room_service;
  hotel::health::HealthServiceImpl health_service;
  hotel::equipment::EquipmentServiceImpl equipment_service;
  hotel::schedules::ScheduleServiceImpl schedule_service;
  hotel::issues::IssueServiceImpl issue_service;
  hotel::blocks::RoomBlockServiceImpl room_block_service;
  hotel::stats::MaintenanceServiceImpl maintenance_service;
  hotel::stats::StatsServiceImpl stats_service;
  hotel::images::ImageServiceImpl image_service;
  hotel::changes::ChangeServiceImpl change_service;
  hotel::webhooks::WebhookServiceImpl webhook_service;
};

// 6. Metrics: what /metrics shows besides every call's count and latency (the RPC observer's).
// Reads from replicas (docs/consistency.md): where they go, and how far behind each replica is.
hotel::Metrics::Samples PerReplica(const hotel::db::ReadStats& stats, const char* label,
                                   double (*value)(const hotel::db::ReplicaStats&)) {
  hotel::Metrics::Samples samples;
  for (const auto& replica : stats.replicas) {
    samples.emplace_back(absl::StrCat(label, "=\"", hotel::LabelValue(replica.name), "\""), value(replica));
  }
  return samples;
}

void RegisterReplicaMetrics(hotel::Metrics& metrics, hotel::db::ReadReplicas& replicas) {
  metrics.AddFamily("hotel_server_replica_lag_seconds",
                    "How far each replica of DATABASE_READ_URL is behind the primary, as last checked (one further "
                    "behind than READ_MAX_LAG serves no reads).",
                    "gauge", [&replicas] {
                      return PerReplica(replicas.Stats(), "replica",
                                        [](const hotel::db::ReplicaStats& r) { return r.lag_seconds; });
                    });
  metrics.AddFamily("hotel_server_replica_serving",
                    "Whether each replica of DATABASE_READ_URL serves reads (1) or is taken out (0: lagging, down, or "
                    "a primary).",
                    "gauge", [&replicas] {
                      return PerReplica(replicas.Stats(), "replica",
                                        [](const hotel::db::ReplicaStats& r) { return r.serving ? 1.0 : 0.0; });
                    });
  metrics.AddFamily("hotel_server_read_calls_reads_total",
                    "Reads of read calls by the database that served them: a replica, or the primary (no replica "
                    "recent enough within READ_TOKEN_WAIT, or none serving).",
                    "counter", [&replicas] {
                      const hotel::db::ReadStats stats = replicas.Stats();
                      hotel::Metrics::Samples samples = PerReplica(
                          stats, "served_by", [](const hotel::db::ReplicaStats& r) { return double(r.reads); });
                      samples.emplace_back("served_by=\"primary\"", static_cast<double>(stats.primary_reads));
                      return samples;
                    });
}

void RegisterMetrics(hotel::Metrics& metrics, Databases& db, Calls& calls, Services& services,
                     const hotel::OtlpExporter* exporter) {
  metrics.AddPool("main", &db.pool);
  metrics.AddPool("health", &db.probe_pool);
  if (db.replicas) RegisterReplicaMetrics(metrics, *db.replicas);
  metrics.AddGauge("hotel_server_database_up", "Whether the last health check reached the database (1) or not (0).",
                   [&calls] { return calls.readiness.database_ok() ? 1 : 0; });
  metrics.AddGauge("hotel_server_change_watchers", "Change feed watch streams open on this server.",
                   [&services] { return services.change_hub.watchers(); });
  metrics.AddFamily("hotel_server_webhook_attempts_total",
                    "Webhook delivery attempts by this replica, by result: delivered (2xx), failed (to be retried), "
                    "disabled (410 or the schedule exhausted), fenced (the lease was taken over meanwhile).",
                    "counter", [&services] {
                      hotel::Metrics::Samples samples;
                      const char* names[] = {"delivered", "failed", "disabled", "fenced"};
                      for (int i = 0; i < 4; ++i) {
                        samples.emplace_back(
                            absl::StrCat("result=\"", names[i], "\""),
                            static_cast<double>(services.webhook_attempts[i].load(std::memory_order_relaxed)));
                      }
                      return samples;
                    });
  metrics.AddFamily("hotel_server_webhooks", "Webhook subscriptions by state (as of the last refresh, every 5 s).",
                    "gauge", [&services] {
                      std::map<std::string, double> by_state = {{"ACTIVE", 0}, {"PAUSED", 0}, {"DISABLED", 0}};
                      for (const auto& stat : services.webhook_sender.Stats()) by_state[stat.state] += 1;
                      hotel::Metrics::Samples samples;
                      for (const auto& [state, count] : by_state) {
                        samples.emplace_back(absl::StrCat("state=\"", hotel::LabelValue(state), "\""), count);
                      }
                      return samples;
                    });
  metrics.AddFamily("hotel_server_webhook_lag_seconds",
                    "Age of the oldest change an active webhook subscription has not had delivered yet (0: caught "
                    "up), per subscription.",
                    "gauge", [&services] {
                      hotel::Metrics::Samples samples;
                      for (const auto& stat : services.webhook_sender.Stats()) {
                        if (stat.state != "ACTIVE") continue;
                        samples.emplace_back(absl::StrCat("webhook=\"", hotel::LabelValue(stat.id), "\""),
                                             stat.lag_seconds);
                      }
                      return samples;
                    });
  metrics.AddFamily(
      "hotel_server_room_block_passes_total",
      "Runs of the room blocks' daily pass by this replica, by result: ok (idle ones included), failed "
      "(the next run applies what it did not).",
      "counter", [&services] {
        const auto& counts = services.block_transition_counts;
        return hotel::Metrics::Samples{
            {"result=\"ok\"", static_cast<double>(counts.passes.load(std::memory_order_relaxed))},
            {"result=\"failed\"", static_cast<double>(counts.failed_passes.load(std::memory_order_relaxed))}};
      });
  metrics.AddFamily(
      "hotel_server_room_block_rooms_changed_total",
      "Rooms whose availability this replica's daily pass flipped (a room block started or ended); "
      "summed over the replicas, each start or end counts once.",
      "counter", [&services] {
        return hotel::Metrics::Samples{
            {"", static_cast<double>(services.block_transition_counts.rooms_changed.load(std::memory_order_relaxed))}};
      });
  metrics.AddGauge("hotel_server_change_log_position",
                   "Sequence number of the newest change this server has read from the change log (0 before its "
                   "first poll); compare replicas and the log's head to see a lagging hub.",
                   [&services] { return static_cast<double>(services.change_hub.position().value_or(0)); });
  metrics.SetAdmission(&calls.admission);
  if (exporter == nullptr) return;
  metrics.AddFamily("hotel_server_trace_spans_exported_total", "Spans the trace backend accepted.", "counter",
                    [exporter] {
                      return hotel::Metrics::Samples{{"", static_cast<double>(exporter->Stats().exported)}};
                    });
  metrics.AddFamily("hotel_server_trace_spans_dropped_total",
                    "Spans dropped, by reason: queue_full (the export queue was full: the backend is slow or away), "
                    "export_failed (the backend did not accept their batch).",
                    "counter", [exporter] {
                      const hotel::OtlpExporterStats stats = exporter->Stats();
                      return hotel::Metrics::Samples{
                          {"reason=\"queue_full\"", static_cast<double>(stats.dropped_queue_full)},
                          {"reason=\"export_failed\"", static_cast<double>(stats.dropped_export_failed)}};
                    });
  metrics.AddGauge("hotel_server_trace_export_queue_spans", "Ended spans waiting for export.",
                   [exporter] { return static_cast<double>(exporter->Stats().queued); });
}

// Why binding address failed, for the log: gRPC only says that it did. Binds a plain socket the
// way gRPC would (minus SO_REUSEPORT); while another process holds the port this is EADDRINUSE.
std::string ListenError(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return "not a host:port address";
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = address.substr(colon + 1);
  if (int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return gai_strerror(rc);
  }
  std::string error = "unknown reason";
  const int fd = socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  if (fd < 0) {
    error = std::strerror(errno);
  } else {
    if (bind(fd, found->ai_addr, found->ai_addrlen) != 0) error = std::strerror(errno);
    close(fd);
  }
  freeaddrinfo(found);
  return error;
}

// 7. The gRPC server: every service on the callback API (gRPC's default health service is too:
// one synchronous method would make a "hybrid" server whose polling stalls; docs/decisions.md),
// the interceptors, reflection, and the listening port.
struct Server {
  static std::vector<std::string> ServedServices() {
    return {"grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection",
            hotel::v1::RoomService::service_full_name(),
            hotel::v1::HealthService::service_full_name(),
            hotel::v1::MetricsService::service_full_name(),
            hotel::v1::EquipmentService::service_full_name(),
            hotel::v1::ScheduleService::service_full_name(),
            hotel::v1::IssueService::service_full_name(),
            hotel::v1::MaintenanceService::service_full_name(),
            hotel::v1::StatsService::service_full_name(),
            hotel::v1::ImageService::service_full_name(),
            hotel::v1::ChangeService::service_full_name(),
            hotel::v1::WebhookService::service_full_name(),
            hotel::v1::RoomBlockService::service_full_name()};
  }

  Server(const Config& config, Services& services, hotel::Metrics& metrics,
         const hotel::api::AdmissionOptions& admission)
      : metrics_service(metrics),
        reflection(ServedServices()),
        reflection_v1(reflection),
        reflection_v1alpha(reflection) {
    grpc::EnableDefaultHealthCheckService(true);
    hotel::api::InstallProtobufLogHandler();
    grpc::ServerBuilder builder;
    // gRPC sets SO_REUSEPORT by default, which lets a second server on the same address start and
    // silently take half the connections. Off: a taken address is an error.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    builder.AddListeningPort(config.listen, grpc::InsecureServerCredentials(), &port);
    for (grpc::Service* service : std::initializer_list<grpc::Service*>{
             &services.room_service, &services.health_service, &metrics_service, &reflection_v1, &reflection_v1alpha,
             &services.equipment_service, &services.schedule_service, &services.issue_service,
             &services.maintenance_service, &services.stats_service, &services.image_service, &services.change_service,
             &services.webhook_service, &services.room_block_service}) {
      builder.RegisterService(service);
    }
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
    // First, so that the observer logs the corrected code of an invalid UTF-8 request.
    interceptors.push_back(std::make_unique<hotel::api::InvalidUtf8InterceptorFactory>());
    interceptors.push_back(std::make_unique<hotel::RpcObserverFactory>(
        metrics, ServedServices(), hotel::RpcLogPolicy{config.rpc_log_sample, config.rpc_log_slow}));
    interceptors.push_back(
        std::make_unique<hotel::api::ChangeCursorInterceptorFactory>([&services]() -> std::optional<int64_t> {
          if (auto position = services.change_hub.position()) return position;
          // Only before the hub's first poll (the first milliseconds): read the head instead.
          auto head = services.change_repository.Head();
          return head.ok() ? std::optional<int64_t>(*head) : std::nullopt;
        }));
    builder.experimental().SetInterceptorCreators(std::move(interceptors));
    // Streams per connection: a backstop above what one connection needs at once (the watchers a
    // gateway carries, up to 1,000, and twice the calls admitted or queued); without a bound every
    // call a flood opens waits in the server's memory (3 GB at 60,000 calls a second with 10,000
    // streams per connection) instead of in its client, until its deadline.
    const int max_streams = config.max_concurrent_streams > 0 ? config.max_concurrent_streams
                                                              : std::min(config.change_max_watchers, 1000) +
                                                                    2 * (admission.limit + admission.queue) + 32;
    builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, max_streams);
    server = builder.BuildAndStart();
  }

  hotel::MetricsServiceImpl metrics_service;
  const hotel::api::ServerReflection reflection;
  hotel::api::ReflectionV1Service reflection_v1;
  hotel::api::ReflectionV1AlphaService reflection_v1alpha;
  int port = 0;
  std::unique_ptr<grpc::Server> server;
};

// 8. Background workers: the health monitor (readiness), the rollup folder, the room blocks' daily
// pass, the change feed's hub and the webhook sender.
struct BackgroundWorkers {
  BackgroundWorkers(const Config& config, Databases& db, Calls& calls, Services& services, grpc::Server& server)
      : monitor(db.pool, db.probe_pool, calls.readiness, server.GetHealthCheckService(),
                {"", "hotel.v1.RoomService", "hotel.v1.HealthService", "hotel.v1.EquipmentService",
                 "hotel.v1.ScheduleService", "hotel.v1.IssueService", "hotel.v1.MaintenanceService",
                 "hotel.v1.StatsService", "hotel.v1.ImageService", "hotel.v1.ChangeService", "hotel.v1.WebhookService",
                 "hotel.v1.RoomBlockService"},
                config.health_interval, db.owner_pool()),
        // Issue and schedule writes append rollup deltas; folding them often keeps reads short.
        rollup_folder(db.pool, config.rollup_fold_interval, [&calls] { return Services::Serving(calls.readiness); }),
        // A property's date turning flips Room.available of the rooms whose blocks start or end.
        block_transitions(
            db.pool, config.block_transition_interval, [&calls] { return Services::Serving(calls.readiness); },
            &services.block_transition_counts) {
    if (db.replicas) {
      db.feed_position = [&services] { return services.change_hub.position(); };
      replicas = &*db.replicas;
      replicas->Start();
    }
    monitor.Start();
    rollup_folder.Start();
    block_transitions.Start();
    services.change_hub.Start();
    services.webhook_sender.Start();
    // The orchestrator's liveness probe: SERVING for as long as the process runs, so a database
    // outage (which makes "" NOT_SERVING) never gets pods restarted.
    server.GetHealthCheckService()->SetServingStatus("liveness", true);
  }

  // The replicas' checker stops before the services go.
  ~BackgroundWorkers() {
    if (replicas != nullptr) replicas->Stop();
  }

  hotel::db::ReadReplicas* replicas = nullptr;
  hotel::health::HealthMonitor monitor;
  hotel::stats::RollupFolder rollup_folder;
  hotel::blocks::RoomBlockTransitions block_transitions;
};

// 9. Signals, taken by one thread with sigwait; every other thread inherits the mask.
sigset_t BlockTerminationSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// Graceful termination (docs/operations.md#rolling-deploys): on SIGTERM, readiness fails at once
// while everything is still served for shutdown_delay, as load balancers take a second or more to
// stop sending; then the server stops accepting, ends change-feed streams with UNAVAILABLE and
// the cursor to resume from, and lets in-flight calls finish.
void StopOnSignal(sigset_t signals, const Config& config, Calls& calls, Services& services, BackgroundWorkers& workers,
                  grpc::Server& server) {
  int signal = 0;
  sigwait(&signals, &signal);
  hotel::LogInfo("shutting down", {{"signal", signal}, {"delay_ms", absl::ToInt64Milliseconds(config.shutdown_delay)}});
  calls.readiness.StartDraining();
  workers.monitor.Drain();
  if (config.shutdown_delay > absl::ZeroDuration()) {
    const timespec delay = absl::ToTimespec(config.shutdown_delay);
    if (sigtimedwait(&signals, nullptr, &delay) > 0) hotel::LogInfo("second signal: stopping now");
  }
  hotel::LogInfo("stopping: no new calls, in-flight ones finish");
  workers.rollup_folder.Stop();
  workers.block_transitions.Stop();
  services.webhook_sender.Stop();  // in-flight deliveries finish (bounded by webhook_timeout) and are recorded
  services.change_hub.Stop();      // ends every watch with UNAVAILABLE, so draining does not wait for them
  server.GetHealthCheckService()->Shutdown();
  server.Shutdown(std::chrono::system_clock::now() + absl::ToChronoMilliseconds(config.shutdown_grace));
}

}  // namespace

// The process's start-up order, each piece one call away.
int main(int argc, char** argv) {
  // Debian's Abseil is built with mutex deadlock detection on, which keeps a lock graph on every
  // acquisition (~2 % of the server's CPU under write load). The tests keep it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // glibc gives each new thread an arena of its own, up to 8 per core, which a burst of calls
  // spread over many threads leaves behind as hundreds of MB. Four arenas serve two cores without
  // contention (docs/performance.md#overload).
  mallopt(M_ARENA_MAX, 4);
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    std::cout << hotel::ConfigUsage();
    return 0;
  }
  auto settings = LoadSettings(args);
  if (!settings.ok()) {
    std::cerr << "hotel-server: " << settings.status().message() << "\n\n" << hotel::ConfigUsage();
    return 2;
  }
  const Config& config = settings->config;
  if (config.migrate_only) return MigrateOnly(config);
  if (!hotel::images::InitImageLibrary(argv[0])) {
    hotel::LogError("libvips failed to start", {});
    return 1;
  }
  const sigset_t signals = BlockTerminationSignals();

  Tracing tracing(settings->tracing);
  Databases databases(config);
  Calls calls(config);
  Services services(*settings, databases, calls);
  hotel::Metrics metrics;
  RegisterMetrics(metrics, databases, calls, services, tracing.exporter.get());
  Server server(config, services, metrics, calls.admission.options());
  if (!server.server || server.port == 0) {
    hotel::LogError("cannot listen", {{"address", config.listen}, {"error", ListenError(config.listen)}});
    return 1;
  }
  const std::string host = config.listen.substr(0, config.listen.rfind(':'));
  std::cout << "hotel-server listening on " << host << ":" << server.port << std::endl;
  hotel::LogInfo("listening", {{"address", absl::StrCat(host, ":", server.port)}, {"version", HOTEL_VERSION}});
  BackgroundWorkers workers(config, databases, calls, services, *server.server);

  std::thread signal_thread([&] { StopOnSignal(signals, config, calls, services, workers, *server.server); });
  server.server->Wait();
  signal_thread.join();
  hotel::LogInfo("stopped");
  return 0;
}
