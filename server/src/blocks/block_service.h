// gRPC handlers of hotel.v1.RoomBlockService: validate, call the repository.
#pragma once

#include <memory>

#include "api/call_runner.h"
#include "db/pool.h"
#include "hotel/v1/room_blocks.grpc.pb.h"

namespace hotel::blocks {

// Builds the service over its own repository on pool.
std::unique_ptr<grpc::Service> NewRoomBlockService(db::ConnectionPool& pool, api::CallRunner& calls);

}  // namespace hotel::blocks
