// gRPC handlers of hotel.v1.RoomService: validate, call the repository, map errors.
#pragma once

#include "api/handle_rpc.h"
#include "hotel/v1/rooms.grpc.pb.h"
#include "rooms/room_repository.h"

namespace hotel::rooms {

// Every call is synchronous: one callback method would make gRPC 1.51 run a "hybrid" server
// whose network polling stalls for 100 ms every second (docs/decisions.md).
class RoomServiceImpl final : public hotel::v1::RoomService::Service {
 public:
  RoomServiceImpl(RoomRepository& repository, const api::Readiness& readiness)
      : repository_(repository), readiness_(readiness) {}

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
  grpc::Status GetRoom(grpc::ServerContext*, const hotel::v1::GetRoomRequest* request,
                       hotel::v1::Room* response) override;
  grpc::Status CreateProperty(grpc::ServerContext* context, const hotel::v1::CreatePropertyRequest* request,
                              hotel::v1::Property* response) override;
  grpc::Status UpdateProperty(grpc::ServerContext* context, const hotel::v1::UpdatePropertyRequest* request,
                              hotel::v1::Property* response) override;
  grpc::Status CreateRoomType(grpc::ServerContext* context, const hotel::v1::CreateRoomTypeRequest* request,
                              hotel::v1::RoomType* response) override;
  grpc::Status UpdateRoomType(grpc::ServerContext* context, const hotel::v1::UpdateRoomTypeRequest* request,
                              hotel::v1::RoomType* response) override;
  grpc::Status CreateRoom(grpc::ServerContext* context, const hotel::v1::CreateRoomRequest* request,
                          hotel::v1::Room* response) override;
  grpc::Status UpdateRoom(grpc::ServerContext* context, const hotel::v1::UpdateRoomRequest* request,
                          hotel::v1::Room* response) override;
  grpc::Status ListAmenities(grpc::ServerContext*, const hotel::v1::ListAmenitiesRequest* request,
                             hotel::v1::ListAmenitiesResponse* response) override;

 private:
  RoomRepository& repository_;
  const api::Readiness& readiness_;
};

}  // namespace hotel::rooms
