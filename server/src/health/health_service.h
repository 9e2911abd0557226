// hotel.v1.HealthService: liveness, startup and overall health for REST probes and people.
// The orchestrator's gRPC probes use the standard grpc.health.v1 service, which the
// HealthMonitor keeps in step with the same readiness.
#pragma once

#include "api/call_runner.h"
#include "db/pool.h"
#include "hotel/v1/health.grpc.pb.h"

namespace hotel::health {

class HealthServiceImpl final : public hotel::v1::HealthService::CallbackService {
 public:
  // probe_pool is a small pool of its own, so a busy main pool never reads as an outage.
  HealthServiceImpl(db::ConnectionPool& probe_pool, const api::Readiness& readiness, api::CallRunner& calls)
      : probe_pool_(probe_pool), readiness_(readiness), calls_(calls) {}

  grpc::ServerUnaryReactor* GetHealth(grpc::CallbackServerContext* context, const hotel::v1::GetHealthRequest* request,
                                      hotel::v1::GetHealthResponse* response) override;
  grpc::ServerUnaryReactor* GetLiveness(grpc::CallbackServerContext* context,
                                        const hotel::v1::GetLivenessRequest* request,
                                        hotel::v1::GetLivenessResponse* response) override;
  grpc::ServerUnaryReactor* GetStartup(grpc::CallbackServerContext* context,
                                       const hotel::v1::GetStartupRequest* request,
                                       hotel::v1::GetStartupResponse* response) override;

 private:
  absl::Status Report(grpc::CallbackServerContext* context, hotel::v1::GetHealthResponse* response);

  db::ConnectionPool& probe_pool_;
  const api::Readiness& readiness_;
  api::CallRunner& calls_;
};

// One round trip to the database; used by GetHealth and the HealthMonitor.
absl::Status PingDatabase(db::ConnectionPool& pool);

}  // namespace hotel::health
