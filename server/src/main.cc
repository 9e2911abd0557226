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
#include "api/change_cursor_interceptor.h"
#include "api/handle_rpc.h"
#include "api/invalid_utf8.h"
#include "api/server_reflection.h"
#include "changes/change_hub.h"
#include "changes/change_repository.h"
#include "changes/change_service.h"
#include "common/config.h"
#include "common/errors.h"
#include "common/log.h"
#include "db/change_listener.h"
#include "db/migrations.h"
#include "db/pool.h"
#include "equipment/equipment_repository.h"
#include "equipment/equipment_service.h"
#include "health/health_monitor.h"
#include "health/health_service.h"
#include "images/image_repository.h"
#include "images/image_service.h"
#include "issues/issue_repository.h"
#include "issues/issue_service.h"
#include "observability/metrics.h"
#include "observability/metrics_service.h"
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

const char* GetEnv(const char* name) { return std::getenv(name); }

int MigrateOnly(hotel::db::ConnectionPool& pool, hotel::db::ConnectionPool* owner_pool) {
  auto version = hotel::db::PrepareSchema(pool, owner_pool, hotel::db::EmbeddedMigrations());
  if (!version.ok()) {
    hotel::LogError("migration failed", {{"error", std::string(version.status().message())}});
    return 1;
  }
  hotel::LogInfo("schema ready", {{"schema_version", *version}});
  return 0;
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

}  // namespace

int main(int argc, char** argv) {
  // Debian's Abseil is built with mutex deadlock detection on, which keeps a lock graph on every
  // acquisition (~2 % of the server's CPU under write load). The tests keep it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // glibc gives each new thread an arena of its own, up to 8 per core, which a burst of calls
  // spread over many threads leaves behind as hundreds of MB. Four arenas serve two cores without
  // contention (docs/performance.md#overload).
  mallopt(M_ARENA_MAX, 4);
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const auto& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << hotel::ConfigUsage();
      return 0;
    }
  }
  auto config = hotel::ParseConfig(args, GetEnv);
  if (!config.ok()) {
    std::cerr << "hotel-server: " << config.status().message() << "\n\n" << hotel::ConfigUsage();
    return 2;
  }
  auto webhook_allow_list = hotel::webhooks::AllowList::Parse(config->webhook_allowed_hosts);
  if (!webhook_allow_list.ok()) {
    std::cerr << "hotel-server: " << webhook_allow_list.status().message() << "\n";
    return 2;
  }
  if (config->webhook_timeout >= config->webhook_lease) {
    std::cerr << "hotel-server: webhook_timeout must be below webhook_lease (a delivery must end within its lease)\n";
    return 2;
  }

  // Signals are taken by one thread with sigwait; every other thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  const bool cache_rooms = config->room_cache_size > 0;
  hotel::rooms::RoomCache room_cache(config->room_cache_size);
  hotel::db::ConnectionPool pool(
      {config->database_url, config->pool_size, config->pool_acquire_timeout, config->connect_timeout,
       config->statement_timeout,
       cache_rooms ? std::function<void()>([&room_cache] { room_cache.InvalidateAll(); }) : nullptr});
  // The schema owner's pool, only for migrations (one connection, closed once they are done);
  // requests never run on it.
  std::optional<hotel::db::ConnectionPool> migration_pool;
  if (!config->migration_database_url.empty()) {
    migration_pool.emplace(hotel::db::PoolOptions{config->migration_database_url, 1, config->pool_acquire_timeout,
                                                  config->connect_timeout, absl::Minutes(10)});
  }
  hotel::db::ConnectionPool* owner_pool = migration_pool ? &*migration_pool : nullptr;
  if (config->migrate_only) return MigrateOnly(pool, owner_pool);
  // Keeps room_cache enabled only while it hears every change made by anyone.
  std::optional<hotel::db::ChangeListener> room_changes;
  if (cache_rooms) {
    room_changes.emplace(
        config->database_url, "room_data_changed", [&room_cache] { room_cache.InvalidateAll(); },
        [&room_cache](bool listening) { room_cache.SetEnabled(listening); });
  }
  hotel::db::ConnectionPool probe_pool(
      {config->database_url, 2, config->pool_acquire_timeout, config->connect_timeout, config->statement_timeout});

  // Admission control and default deadlines for every call that goes through HandleRpc (health
  // checks, metrics and reflection do not: they are never shed). Handler bodies run on the call
  // executor, one thread for each call that may be admitted or wait for admission; gRPC's own
  // threads only receive calls, answer from memory and write (docs/decisions.md, "Threading model").
  const int max_in_flight = config->max_in_flight > 0 ? config->max_in_flight : 2 * config->pool_size;
  hotel::api::AdmissionControl admission(
      {max_in_flight, config->admission_queue >= 0 ? config->admission_queue : std::max(1, max_in_flight / 2),
       config->admission_queue_timeout, config->adaptive_limit});
  hotel::api::CallExecutor call_executor(admission.options().limit + admission.options().queue);
  const hotel::api::CallPolicy call_policy{&admission, &call_executor, config->read_timeout, config->write_timeout};
  hotel::api::InstallCallPolicy(&call_policy);

  hotel::api::Readiness readiness;
  hotel::rooms::RoomRepository room_repository(pool, config->cdn_base_url, cache_rooms ? &room_cache : nullptr);
  hotel::rooms::RoomServiceImpl room_service(room_repository, readiness);
  hotel::health::HealthServiceImpl health_service(probe_pool, readiness);
  hotel::equipment::EquipmentRepository equipment_repository(pool);
  hotel::schedules::ScheduleRepository schedule_repository(pool);
  hotel::issues::IssueRepository issue_repository(pool);
  hotel::stats::StatsRepository stats_repository(pool);
  hotel::equipment::EquipmentServiceImpl equipment_service(equipment_repository, readiness);
  hotel::schedules::ScheduleServiceImpl schedule_service(schedule_repository, readiness);
  hotel::issues::IssueServiceImpl issue_service(issue_repository, readiness);
  hotel::stats::MaintenanceServiceImpl maintenance_service(stats_repository, readiness);
  hotel::stats::StatsServiceImpl stats_service(stats_repository, readiness);
  hotel::images::ImageRepository image_repository(pool, config->cdn_base_url);
  hotel::images::ImageServiceImpl image_service(image_repository, readiness);
  // The change feed's poller, sequencer and pruner run on a connection of their own, so they never
  // wait for (or delay) requests; watchers hold none.
  hotel::db::ConnectionPool change_pool(
      {config->database_url, 1, config->pool_acquire_timeout, config->connect_timeout, config->statement_timeout});
  hotel::changes::ChangeRepository change_log(change_pool);
  hotel::changes::ChangeHub change_hub(change_log,
                                       {config->change_poll_interval, config->change_poll_interval * 4,
                                        config->change_retention, config->change_prune_interval, 10000,
                                        config->change_max_watchers, static_cast<size_t>(config->change_watcher_buffer),
                                        config->change_heartbeat_interval, config->change_heartbeat_interval},
                                       [&readiness] { return readiness.started() && readiness.database_ok(); });
  hotel::changes::ChangeRepository change_repository(pool);
  hotel::changes::ChangeServiceImpl change_service(change_repository, change_hub, readiness, call_executor);

  // Webhooks (docs/webhooks.md): subscriptions on the request pool.
  hotel::webhooks::WebhookRepository webhook_repository(pool, change_repository);
  // A ping answers within the request's own deadline (write_timeout, 10 s by default).
  const hotel::webhooks::HttpOptions ping_http{config->webhook_connect_timeout,
                                               std::min(config->webhook_timeout, config->write_timeout / 2)};
  hotel::webhooks::WebhookServiceImpl webhook_service(webhook_repository, *webhook_allow_list, ping_http, readiness);
  // The sender runs on a pool of its own (one connection per thread), so deliveries never wait for
  // requests; a connection is held only between HTTP calls, never during one.
  hotel::db::ConnectionPool webhook_pool({config->database_url, config->webhook_senders + 1,
                                          config->pool_acquire_timeout, config->connect_timeout,
                                          config->statement_timeout});
  hotel::webhooks::WebhookRepository webhook_delivery_repository(webhook_pool, change_log);
  std::atomic<int64_t> webhook_attempts[4] = {0, 0, 0, 0};  // by hotel::webhooks::AttemptResult
  char host_name[256] = {0};
  gethostname(host_name, sizeof(host_name) - 1);
  hotel::webhooks::RetryPolicy webhook_retry;
  webhook_retry.scale = config->webhook_retry_scale;
  hotel::webhooks::WebhookSender webhook_sender(
      webhook_delivery_repository,
      {config->webhook_senders,
       config->webhook_lease,
       config->webhook_poll_interval,
       {config->webhook_connect_timeout, config->webhook_timeout},
       webhook_retry,
       absl::StrCat(host_name, ":", getpid())},
      [&readiness] { return readiness.started() && readiness.database_ok() && !readiness.draining(); },
      [&webhook_attempts](hotel::webhooks::AttemptResult result, const hotel::webhooks::HttpResult&) {
        webhook_attempts[static_cast<int>(result)].fetch_add(1, std::memory_order_relaxed);
      });
  hotel::Metrics metrics;
  metrics.AddPool("main", &pool);
  metrics.AddPool("health", &probe_pool);
  metrics.AddGauge("hotel_server_database_up", "Whether the last health check reached the database (1) or not (0).",
                   [&readiness] { return readiness.database_ok() ? 1 : 0; });
  metrics.AddGauge("hotel_server_change_watchers", "Change feed watch streams open on this server.",
                   [&change_hub] { return change_hub.watchers(); });
  metrics.AddFamily("hotel_server_webhook_attempts_total",
                    "Webhook delivery attempts by this replica, by result: delivered (2xx), failed (to be retried), "
                    "disabled (410 or the schedule exhausted), fenced (the lease was taken over meanwhile).",
                    "counter", [&webhook_attempts] {
                      hotel::Metrics::Samples samples;
                      const char* names[] = {"delivered", "failed", "disabled", "fenced"};
                      for (int i = 0; i < 4; ++i) {
                        samples.emplace_back(absl::StrCat("result=\"", names[i], "\""),
                                             static_cast<double>(webhook_attempts[i].load(std::memory_order_relaxed)));
                      }
                      return samples;
                    });
  metrics.AddFamily("hotel_server_webhooks", "Webhook subscriptions by state (as of the last refresh, every 5 s).",
                    "gauge", [&webhook_sender] {
                      std::map<std::string, double> by_state = {{"ACTIVE", 0}, {"PAUSED", 0}, {"DISABLED", 0}};
                      for (const auto& stat : webhook_sender.Stats()) by_state[stat.state] += 1;
                      hotel::Metrics::Samples samples;
                      for (const auto& [state, count] : by_state) {
                        samples.emplace_back(absl::StrCat("state=\"", hotel::LabelValue(state), "\""), count);
                      }
                      return samples;
                    });
  metrics.AddFamily("hotel_server_webhook_lag_seconds",
                    "Age of the oldest change an active webhook subscription has not had delivered yet (0: caught "
                    "up), per subscription.",
                    "gauge", [&webhook_sender] {
                      hotel::Metrics::Samples samples;
                      for (const auto& stat : webhook_sender.Stats()) {
                        if (stat.state != "ACTIVE") continue;
                        samples.emplace_back(absl::StrCat("webhook=\"", hotel::LabelValue(stat.id), "\""),
                                             stat.lag_seconds);
                      }
                      return samples;
                    });
  metrics.AddGauge("hotel_server_change_log_position",
                   "Sequence number of the newest change this server has read from the change log (0 before its "
                   "first poll); compare replicas and the log's head to see a lagging hub.",
                   [&change_hub] { return static_cast<double>(change_hub.position().value_or(0)); });
  metrics.SetAdmission(&admission);
  hotel::MetricsServiceImpl metrics_service(metrics);

  // Every service is on the callback API (gRPC's default health service is too): one synchronous
  // method would make a "hybrid" server whose polling stalls (docs/decisions.md).
  grpc::EnableDefaultHealthCheckService(true);
  hotel::api::InstallProtobufLogHandler();
  const hotel::api::ServerReflection reflection(
      {"grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection",
       hotel::v1::RoomService::service_full_name(), hotel::v1::HealthService::service_full_name(),
       hotel::v1::MetricsService::service_full_name(), hotel::v1::EquipmentService::service_full_name(),
       hotel::v1::ScheduleService::service_full_name(), hotel::v1::IssueService::service_full_name(),
       hotel::v1::MaintenanceService::service_full_name(), hotel::v1::StatsService::service_full_name(),
       hotel::v1::ImageService::service_full_name(), hotel::v1::ChangeService::service_full_name(),
       hotel::v1::WebhookService::service_full_name()});
  hotel::api::ReflectionV1Service reflection_v1(reflection);
  hotel::api::ReflectionV1AlphaService reflection_v1alpha(reflection);
  grpc::ServerBuilder builder;
  int port = 0;
  // gRPC sets SO_REUSEPORT by default, which lets a second server on the same address start and
  // silently take half the connections. Off: a taken address is an error.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(config->listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&room_service);
  builder.RegisterService(&health_service);
  builder.RegisterService(&metrics_service);
  builder.RegisterService(&reflection_v1);
  builder.RegisterService(&reflection_v1alpha);
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  // First, so that the observer logs the corrected code of an invalid UTF-8 request.
  interceptors.push_back(std::make_unique<hotel::api::InvalidUtf8InterceptorFactory>());
  interceptors.push_back(std::make_unique<hotel::RpcObserverFactory>(
      metrics, hotel::RpcLogPolicy{config->rpc_log_sample, config->rpc_log_slow}));
  interceptors.push_back(std::make_unique<hotel::api::ChangeCursorInterceptorFactory>([&]() -> std::optional<int64_t> {
    if (auto position = change_hub.position()) return position;
    // Only before the hub's first poll (the first milliseconds): read the head instead.
    auto head = change_repository.Head();
    return head.ok() ? std::optional<int64_t>(*head) : std::nullopt;
  }));
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  builder.RegisterService(&equipment_service);
  builder.RegisterService(&schedule_service);
  builder.RegisterService(&issue_service);
  builder.RegisterService(&maintenance_service);
  builder.RegisterService(&stats_service);
  builder.RegisterService(&image_service);
  builder.RegisterService(&change_service);
  builder.RegisterService(&webhook_service);
  // Streams per connection: a backstop above what one connection needs at once (the watchers a
  // gateway carries, up to 1,000, and twice the calls admitted or queued); without a bound every
  // call a flood opens waits in the server's memory (3 GB at 60,000 calls a second with 10,000
  // streams per connection) instead of in its client, until its deadline.
  const int max_streams = config->max_concurrent_streams > 0
                              ? config->max_concurrent_streams
                              : std::min(config->change_max_watchers, 1000) +
                                    2 * (admission.options().limit + admission.options().queue) + 32;
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, max_streams);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    hotel::LogError("cannot listen", {{"address", config->listen}, {"error", ListenError(config->listen)}});
    return 1;
  }
  const std::string host = config->listen.substr(0, config->listen.rfind(':'));
  std::cout << "hotel-server listening on " << host << ":" << port << std::endl;
  hotel::LogInfo("listening", {{"address", absl::StrCat(host, ":", port)}, {"version", HOTEL_VERSION}});

  hotel::health::HealthMonitor monitor(
      pool, probe_pool, readiness, server->GetHealthCheckService(),
      {"", "hotel.v1.RoomService", "hotel.v1.HealthService", "hotel.v1.EquipmentService", "hotel.v1.ScheduleService",
       "hotel.v1.IssueService", "hotel.v1.MaintenanceService", "hotel.v1.StatsService", "hotel.v1.ImageService",
       "hotel.v1.ChangeService", "hotel.v1.WebhookService"},
      config->health_interval, owner_pool);
  monitor.Start();
  // Issue and schedule writes append rollup deltas; folding them often keeps reads short.
  hotel::stats::RollupFolder rollup_folder(pool, config->rollup_fold_interval,
                                           [&readiness] { return readiness.started() && readiness.database_ok(); });
  rollup_folder.Start();
  change_hub.Start();
  webhook_sender.Start();
  // The orchestrator's liveness probe: SERVING for as long as the process runs, so a database
  // outage (which makes "" NOT_SERVING) never gets pods restarted.
  server->GetHealthCheckService()->SetServingStatus("liveness", true);

  // Graceful termination (docs/operations.md#rolling-deploys): on SIGTERM, readiness fails at
  // once while everything is still served for shutdown_delay, as load balancers take a second or
  // more to stop sending; then the server stops accepting, ends change-feed streams with
  // UNAVAILABLE and the cursor to resume from, and lets in-flight calls finish.
  std::thread signal_thread([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    hotel::LogInfo("shutting down",
                   {{"signal", signal}, {"delay_ms", absl::ToInt64Milliseconds(config->shutdown_delay)}});
    readiness.StartDraining();
    monitor.Drain();
    if (config->shutdown_delay > absl::ZeroDuration()) {
      const timespec delay = absl::ToTimespec(config->shutdown_delay);
      if (sigtimedwait(&signals, nullptr, &delay) > 0) hotel::LogInfo("second signal: stopping now");
    }
    hotel::LogInfo("stopping: no new calls, in-flight ones finish");
    rollup_folder.Stop();
    webhook_sender.Stop();  // in-flight deliveries finish (bounded by webhook_timeout) and are recorded
    change_hub.Stop();      // ends every watch with UNAVAILABLE, so draining does not wait for them
    server->GetHealthCheckService()->Shutdown();
    server->Shutdown(std::chrono::system_clock::now() + absl::ToChronoMilliseconds(config->shutdown_grace));
  });
  server->Wait();
  signal_thread.join();
  hotel::LogInfo("stopped");
  return 0;
}
