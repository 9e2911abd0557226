// gRPC handlers of hotel.v1.HousekeepingService: validate, call the repository.
#pragma once

#include <memory>

#include "api/call_runner.h"
#include "db/pool.h"
#include "hotel/v1/housekeeping.grpc.pb.h"

namespace hotel::housekeeping {

// Builds the service over its own repository on pool.
std::unique_ptr<grpc::Service> NewHousekeepingService(db::ConnectionPool& pool, api::CallRunner& calls);

}  // namespace hotel::housekeeping
