#include "health/health_service.h"

#include "absl/time/clock.h"
#include "api/gateway_metadata.h"
#include "common/errors.h"

namespace hotel::health {
namespace {

using hotel::v1::HealthCheck;

HealthCheck::Status ToStatus(bool ok) { return ok ? HealthCheck::SERVING : HealthCheck::NOT_SERVING; }

}  // namespace

absl::Status PingDatabase(db::ConnectionPool& pool) {
  return pool.Run(db::Access::kRead, [](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    if (txn.exec1("SELECT pg_is_in_recovery()")[0].as<bool>()) {
      // A connection left on a primary that was demoted (or a URL naming a standby): the service
      // cannot write there. Closed, so the next check connects afresh to the new primary.
      session.Discard();
      return UnavailableError("DATABASE_READ_ONLY",
                              "the database is a standby (failover in progress?); reconnecting to the primary");
    }
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* HealthServiceImpl::GetHealth(grpc::CallbackServerContext* context,
                                                       const hotel::v1::GetHealthRequest*,
                                                       hotel::v1::GetHealthResponse* response) {
  // It pings the database (on the probe pool): off gRPC's thread, and never shed.
  return calls_.RunProbe(context, [=, this]() { return Report(context, response); });
}

absl::Status HealthServiceImpl::Report(grpc::CallbackServerContext* context, hotel::v1::GetHealthResponse* response) {
  const absl::Time now = absl::Now();
  response->set_version(HOTEL_VERSION);
  response->set_uptime_seconds(absl::ToInt64Seconds(now - readiness_.started_at()));
  response->mutable_started_at()->set_seconds(absl::ToUnixSeconds(readiness_.started_at()));

  auto* database = response->add_checks();
  database->set_name("database");
  const absl::Time ping_start = absl::Now();
  absl::Status ping = PingDatabase(probe_pool_);
  database->set_latency_ms(absl::ToDoubleMilliseconds(absl::Now() - ping_start));
  database->set_status(ToStatus(ping.ok()));
  if (!ping.ok()) database->set_message(std::string(ping.message()));

  auto* migrations = response->add_checks();
  migrations->set_name("migrations");
  migrations->set_status(ToStatus(readiness_.started()));
  if (!readiness_.started()) migrations->set_message("schema migrations not applied yet");

  if (readiness_.draining()) {
    auto* shutdown = response->add_checks();
    shutdown->set_name("shutdown");
    shutdown->set_status(HealthCheck::NOT_SERVING);
    shutdown->set_message("the server is shutting down; send new requests to another replica");
  }
  const bool serving = ping.ok() && readiness_.started() && !readiness_.draining();
  response->set_status(ToStatus(serving));
  if (!serving) api::SetHttpStatus(context, 503);  // a REST probe sees 503; the body says why
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* HealthServiceImpl::GetLiveness(grpc::CallbackServerContext* context,
                                                         const hotel::v1::GetLivenessRequest*,
                                                         hotel::v1::GetLivenessResponse* response) {
  response->set_status(HealthCheck::SERVING);
  response->set_version(HOTEL_VERSION);
  return api::Finish(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* HealthServiceImpl::GetStartup(grpc::CallbackServerContext* context,
                                                        const hotel::v1::GetStartupRequest*,
                                                        hotel::v1::GetStartupResponse* response) {
  response->set_status(ToStatus(readiness_.started()));
  response->set_schema_version(readiness_.schema_version());
  if (!readiness_.started()) api::SetHttpStatus(context, 503);  // a REST probe sees 503; the body says why
  return api::Finish(context, absl::OkStatus());
}

}  // namespace hotel::health
