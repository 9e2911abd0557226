// gRPC handlers of hotel.v1.IssueService: validate, call the repository, map errors.
#pragma once

#include <memory>

#include "api/call_runner.h"
#include "db/pool.h"
#include "hotel/v1/maintenance.grpc.pb.h"

namespace hotel::issues {

// Builds the service over its own repository on pool.
std::unique_ptr<grpc::Service> NewIssueService(db::ConnectionPool& pool, api::CallRunner& calls);

}  // namespace hotel::issues
