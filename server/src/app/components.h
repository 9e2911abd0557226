// The server's parts, in the order they are built (each from the config and the parts before it):
// tracing, the databases, the call path, the areas, and what serves from memory (metrics and
// reflection). Building them opens no port and starts no thread of work: app/app.h starts them.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "api/admission.h"
#include "api/call_runner.h"
#include "api/readiness.h"
#include "api/server_reflection.h"
#include "app/settings.h"
#include "blocks/block_transitions.h"
#include "changes/change_hub.h"
#include "changes/change_repository.h"
#include "db/change_listener.h"
#include "db/pool.h"
#include "db/read_replicas.h"
#include "housekeeping/day_turn.h"
#include "images/image_file_repository.h"
#include "images/image_repository.h"
#include "images/ingest/image_ingestion.h"
#include "images/ingest/image_upload.h"
#include "observability/metrics.h"
#include "observability/otlp_exporter.h"
#include "rooms/room_cache.h"
#include "rooms/room_repository.h"
#include "stats/rollup_folder.h"
#include "webhooks/webhook_repository.h"
#include "webhooks/webhook_sender.h"

namespace hotel::app {

// The schema owner's pool (MIGRATION_DATABASE_URL: one connection, for migrations only); none
// when unset.
std::optional<db::ConnectionPool> MigrationPoolOf(const Config& config);

// Traces (docs/operations.md, "Tracing"): the exporter every span goes to, installed before
// anything can start one; at exit it is uninstalled, then flushes what is queued.
class Tracing {
 public:
  explicit Tracing(const std::optional<OtlpOptions>& options);
  ~Tracing();
  OtlpExporter* exporter() const { return exporter_.get(); }

 private:
  std::unique_ptr<OtlpExporter> exporter_;
};

// The request pool (with the room cache it keeps honest), and small pools of their own for
// migrations, probes, the change feed and webhook deliveries, so none waits for requests. With
// DATABASE_READ_URL, the reads of read calls go to a replica recent enough for them
// (db/read_replicas.h) and every write answers its consistency token (docs/consistency.md).
struct Databases {
  explicit Databases(const Config& config);
  db::ConnectionPool* owner_pool() { return migration_pool ? &*migration_pool : nullptr; }

  const bool cache_rooms;
  rooms::RoomCache room_cache;
  std::optional<db::ReadReplicas> replicas;
  db::ConnectionPool pool;
  // The schema owner's (one connection, closed once migrations are done; requests never run on it).
  std::optional<db::ConnectionPool> migration_pool;
  db::ConnectionPool probe_pool;
  db::ConnectionPool change_pool;   // the change feed's poller, sequencer and pruner
  db::ConnectionPool webhook_pool;  // one connection per sender thread
  std::optional<db::ChangeListener> room_changes;
};

// Admission control and default deadlines for every call the call runner runs (health checks run
// on its probe threads, never shed; metrics and reflection answer from memory). Handler bodies
// run on admission's threads; gRPC's own threads only receive calls, answer from memory and write
// (docs/decisions.md, "Threading model"). Uploaded images are rendered on a pool of their own.
struct Calls {
  explicit Calls(const Config& config);
  // Background work runs once the schema is current and while the database answers.
  bool Serving() const { return readiness.started() && readiness.database_ok(); }

  api::Readiness readiness;
  api::AdmissionControl admission;
  api::AdmissionControl renders;
  api::CallRunner runner;
};

// What the areas share beyond the request pool: the repositories built from more than the pool,
// image ingestion, the change feed's hub and the webhook sender. An area whose service needs only
// the request pool (api/area_service.h) has nothing here: its row in the services table builds it.
struct Areas {
  Areas(const Settings& settings, Databases& db, Calls& calls);

  rooms::RoomRepository room_repository;
  images::ImageRepository image_repository;
  images::ImageFileRepository image_files;
  images::ImageIngestion image_ingestion;
  images::ImageUploadService image_uploads;
  changes::ChangeRepository change_log;         // on the change feed's own pool
  changes::ChangeRepository change_repository;  // on the request pool
  webhooks::WebhookRepository webhook_repository;
  webhooks::WebhookRepository webhook_delivery_repository;  // on the senders' pool
  changes::ChangeHub change_hub;
  webhooks::WebhookSender webhook_sender;
};

// The background passes over the database: issue and schedule writes append rollup deltas, and
// folding them often keeps reads short; a property's date turning flips Room.available of the
// rooms whose blocks start or end, and gives rooms what the housekeeping policy says the night does.
struct Passes {
  Passes(const Config& config, Databases& db, const Calls& calls);

  stats::RollupFolder rollup_folder;
  blocks::RoomBlockTransitions block_transitions;
  housekeeping::HousekeepingDayTurn housekeeping_day_turn;
};

// Everything above, what answers from memory (/metrics, where each module registers its own
// series, and reflection), and last the gRPC services, one per row of the services table
// (app/services_table.h), in its order.
struct Components {
  explicit Components(const Settings& settings);

  const Settings& settings;
  Tracing tracing;
  Databases databases;
  Calls calls;
  Areas areas;
  Passes passes;
  Metrics metrics;
  const api::ServerReflection reflection;
  std::vector<std::unique_ptr<grpc::Service>> services;
};

}  // namespace hotel::app
