// gRPC handlers of hotel.v1.RoomService: validate, call the repository, map errors.
#pragma once

#include "common/blocking_executor.h"
#include "health/readiness.h"
#include "hotel/v1/rooms.grpc.pb.h"
#include "rooms/room_repository.h"

namespace hotel::rooms {

// GetRoom, the hottest call, uses the callback API: a cached room is answered on the gRPC
// thread that received the call; a miss goes to blocking_, sized like the connection pool, so
// database waits never hold gRPC's own threads (docs/performance.md). The rest are synchronous.
class RoomServiceImpl final
    : public hotel::v1::RoomService::WithCallbackMethod_GetRoom<hotel::v1::RoomService::Service> {
 public:
  RoomServiceImpl(RoomRepository& repository, const Readiness& readiness, int blocking_threads)
      : repository_(repository), readiness_(readiness), blocking_(blocking_threads) {}

  grpc::Status ListProperties(grpc::ServerContext*, const hotel::v1::ListPropertiesRequest* request,
                              hotel::v1::ListPropertiesResponse* response) override;
  grpc::Status GetProperty(grpc::ServerContext*, const hotel::v1::GetPropertyRequest* request,
                           hotel::v1::Property* response) override;
  grpc::Status ListRoomTypes(grpc::ServerContext*, const hotel::v1::ListRoomTypesRequest* request,
                             hotel::v1::ListRoomTypesResponse* response) override;
  grpc::Status GetRoomType(grpc::ServerContext*, const hotel::v1::GetRoomTypeRequest* request,
                           hotel::v1::RoomType* response) override;
  grpc::Status ListRooms(grpc::ServerContext*, const hotel::v1::ListRoomsRequest* request,
                         hotel::v1::ListRoomsResponse* response) override;
  grpc::ServerUnaryReactor* GetRoom(grpc::CallbackServerContext* context, const hotel::v1::GetRoomRequest* request,
                                    hotel::v1::Room* response) override;

 private:
  RoomRepository& repository_;
  const Readiness& readiness_;
  BlockingExecutor blocking_;  // destroyed after the server, which waits for calls in flight
};

}  // namespace hotel::rooms
