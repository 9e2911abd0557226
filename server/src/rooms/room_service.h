// gRPC handlers of hotel.v1.RoomService: validate, call the repository, map errors.
#pragma once

#include "api/call_runner.h"
#include "hotel/v1/rooms.grpc.pb.h"
#include "rooms/room_repository.h"

namespace hotel::rooms {

class RoomServiceImpl final : public hotel::v1::RoomService::CallbackService {
 public:
  RoomServiceImpl(RoomRepository& repository, api::CallRunner& calls) : repository_(repository), calls_(calls) {}

  grpc::ServerUnaryReactor* ListProperties(grpc::CallbackServerContext*,
                                           const hotel::v1::ListPropertiesRequest* request,
                                           hotel::v1::ListPropertiesResponse* response) override;
  grpc::ServerUnaryReactor* GetProperty(grpc::CallbackServerContext*, const hotel::v1::GetPropertyRequest* request,
                                        hotel::v1::Property* response) override;
  grpc::ServerUnaryReactor* ListRoomTypes(grpc::CallbackServerContext*, const hotel::v1::ListRoomTypesRequest* request,
                                          hotel::v1::ListRoomTypesResponse* response) override;
  grpc::ServerUnaryReactor* GetRoomType(grpc::CallbackServerContext*, const hotel::v1::GetRoomTypeRequest* request,
                                        hotel::v1::RoomType* response) override;
  grpc::ServerUnaryReactor* ListRooms(grpc::CallbackServerContext*, const hotel::v1::ListRoomsRequest* request,
                                      hotel::v1::ListRoomsResponse* response) override;
  grpc::ServerUnaryReactor* GetRoom(grpc::CallbackServerContext*, const hotel::v1::GetRoomRequest* request,
                                    hotel::v1::Room* response) override;
  grpc::ServerUnaryReactor* BatchGetRooms(grpc::CallbackServerContext*, const hotel::v1::BatchGetRoomsRequest* request,
                                          hotel::v1::BatchGetRoomsResponse* response) override;
  grpc::ServerUnaryReactor* CreateProperty(grpc::CallbackServerContext* context,
                                           const hotel::v1::CreatePropertyRequest* request,
                                           hotel::v1::Property* response) override;
  grpc::ServerUnaryReactor* UpdateProperty(grpc::CallbackServerContext* context,
                                           const hotel::v1::UpdatePropertyRequest* request,
                                           hotel::v1::Property* response) override;
  grpc::ServerUnaryReactor* CreateRoomType(grpc::CallbackServerContext* context,
                                           const hotel::v1::CreateRoomTypeRequest* request,
                                           hotel::v1::RoomType* response) override;
  grpc::ServerUnaryReactor* UpdateRoomType(grpc::CallbackServerContext* context,
                                           const hotel::v1::UpdateRoomTypeRequest* request,
                                           hotel::v1::RoomType* response) override;
  grpc::ServerUnaryReactor* CreateRoom(grpc::CallbackServerContext* context,
                                       const hotel::v1::CreateRoomRequest* request, hotel::v1::Room* response) override;
  grpc::ServerUnaryReactor* UpdateRoom(grpc::CallbackServerContext* context,
                                       const hotel::v1::UpdateRoomRequest* request, hotel::v1::Room* response) override;
  grpc::ServerUnaryReactor* ListAmenities(grpc::CallbackServerContext*, const hotel::v1::ListAmenitiesRequest* request,
                                          hotel::v1::ListAmenitiesResponse* response) override;

 private:
  RoomRepository& repository_;
  api::CallRunner& calls_;
};

}  // namespace hotel::rooms
