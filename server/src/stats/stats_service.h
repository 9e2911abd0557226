// gRPC handlers of hotel.v1.StatsService: issue statistics and the dashboard summary.
#pragma once

#include <memory>

#include "api/call_runner.h"
#include "db/pool.h"
#include "hotel/v1/maintenance.grpc.pb.h"

namespace hotel::stats {

// Builds the service over its own repository on pool.
std::unique_ptr<grpc::Service> NewStatsService(db::ConnectionPool& pool, api::CallRunner& calls);

}  // namespace hotel::stats
