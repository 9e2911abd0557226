#include "rooms/room_service.h"

#include "api/identifiers.h"
#include "common/errors.h"

namespace hotel::rooms {

using hotel::v1::GetPropertyRequest;
using hotel::v1::GetRoomRequest;
using hotel::v1::GetRoomTypeRequest;
using hotel::v1::ListPropertiesRequest;
using hotel::v1::ListPropertiesResponse;
using hotel::v1::ListRoomsRequest;
using hotel::v1::ListRoomsResponse;
using hotel::v1::ListRoomTypesRequest;
using hotel::v1::ListRoomTypesResponse;
using hotel::v1::Property;
using hotel::v1::Room;
using hotel::v1::RoomType;

grpc::Status RoomServiceImpl::ListProperties(grpc::ServerContext*, const ListPropertiesRequest* request,
                                             ListPropertiesResponse* response) {
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    auto query = ParseListProperties(*request);
    if (!query.ok()) return query.status();
    return repository_.ListProperties(*query, response);
  });
}

grpc::Status RoomServiceImpl::GetProperty(grpc::ServerContext*, const GetPropertyRequest* request, Property* response) {
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    if (auto s = api::ValidatePropertyId("id", request->id()); !s.ok()) return s;
    return repository_.GetProperty(request->id(), response);
  });
}

grpc::Status RoomServiceImpl::ListRoomTypes(grpc::ServerContext*, const ListRoomTypesRequest* request,
                                            ListRoomTypesResponse* response) {
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    auto query = ParseListRoomTypes(*request);
    if (!query.ok()) return query.status();
    return repository_.ListRoomTypes(*query, response);
  });
}

grpc::Status RoomServiceImpl::GetRoomType(grpc::ServerContext*, const GetRoomTypeRequest* request, RoomType* response) {
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    if (auto s = api::ValidateRoomTypeId("id", request->id()); !s.ok()) return s;
    return repository_.GetRoomType(request->id(), response);
  });
}

grpc::Status RoomServiceImpl::ListRooms(grpc::ServerContext*, const ListRoomsRequest* request,
                                        ListRoomsResponse* response) {
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    auto query = ParseListRooms(*request);
    if (!query.ok()) return query.status();
    return repository_.ListRooms(*query, response);
  });
}

grpc::Status RoomServiceImpl::GetRoom(grpc::ServerContext*, const GetRoomRequest* request, Room* response) {
  // Only valid addresses of a started server are ever cached, so a hit needs no further checks.
  if (repository_.GetCachedRoom(request->property_id(), request->number(), response)) return grpc::Status::OK;
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    if (auto s = api::ValidateRoomAddress(request->property_id(), request->number()); !s.ok()) return s;
    return repository_.LoadRoom(request->property_id(), request->number(), response);  // GetCachedRoom missed
  });
}

}  // namespace hotel::rooms
