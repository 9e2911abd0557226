#include "rooms/room_service.h"

#include "api/gateway_metadata.h"
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

grpc::Status RoomServiceImpl::ListProperties(grpc::ServerContext* context, const ListPropertiesRequest* request,
                                             ListPropertiesResponse* response) {
  return api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
    auto query = ParseListProperties(*request);
    if (!query.ok()) return query.status();
    return repository_.ListProperties(*query, response);
  });
}

grpc::Status RoomServiceImpl::GetProperty(grpc::ServerContext* context, const GetPropertyRequest* request,
                                          Property* response) {
  return api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
    if (auto s = api::ValidatePropertyId("id", request->id()); !s.ok()) return s;
    return repository_.GetProperty(request->id(), response);
  });
}

grpc::Status RoomServiceImpl::ListRoomTypes(grpc::ServerContext* context, const ListRoomTypesRequest* request,
                                            ListRoomTypesResponse* response) {
  return api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
    auto query = ParseListRoomTypes(*request);
    if (!query.ok()) return query.status();
    return repository_.ListRoomTypes(*query, response);
  });
}

grpc::Status RoomServiceImpl::GetRoomType(grpc::ServerContext* context, const GetRoomTypeRequest* request,
                                          RoomType* response) {
  return api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
    if (auto s = api::ValidateRoomTypeId("id", request->id()); !s.ok()) return s;
    return repository_.GetRoomType(request->id(), response);
  });
}

grpc::Status RoomServiceImpl::ListRooms(grpc::ServerContext* context, const ListRoomsRequest* request,
                                        ListRoomsResponse* response) {
  return api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
    auto query = ParseListRooms(*request);
    if (!query.ok()) return query.status();
    return repository_.ListRooms(*query, response);
  });
}

grpc::Status RoomServiceImpl::GetRoom(grpc::ServerContext* context, const GetRoomRequest* request, Room* response) {
  // Only valid addresses of a started server are ever cached, so a hit needs no further checks.
  if (repository_.GetCachedRoom(request->property_id(), request->number(), response)) return grpc::Status::OK;
  return api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
    if (auto s = api::ValidateRoomAddress(request->property_id(), request->number()); !s.ok()) return s;
    return repository_.LoadRoom(request->property_id(), request->number(), response);  // GetCachedRoom missed
  });
}

namespace {
std::vector<std::string> MaskPaths(const google::protobuf::FieldMask& mask) {
  return {mask.paths().begin(), mask.paths().end()};
}
}  // namespace

grpc::Status RoomServiceImpl::CreateProperty(grpc::ServerContext* context,
                                             const hotel::v1::CreatePropertyRequest* request, Property* response) {
  return api::Created(context, api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
                        auto property = ValidateCreateProperty(*request);
                        if (!property.ok()) return property.status();
                        return repository_.CreateProperty(*property, response);
                      }));
}

grpc::Status RoomServiceImpl::UpdateProperty(grpc::ServerContext* context,
                                             const hotel::v1::UpdatePropertyRequest* request, Property* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
    if (auto s = api::ValidatePropertyId("id", request->id()); !s.ok()) return s;
    return repository_.UpdateProperty(request->id(), request->property(), MaskPaths(request->update_mask()), if_match,
                                      response);
  });
}

grpc::Status RoomServiceImpl::CreateRoomType(grpc::ServerContext* context,
                                             const hotel::v1::CreateRoomTypeRequest* request, RoomType* response) {
  return api::Created(context, api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
                        auto room_type = ValidateCreateRoomType(*request);
                        if (!room_type.ok()) return room_type.status();
                        return repository_.CreateRoomType(*room_type, response);
                      }));
}

grpc::Status RoomServiceImpl::UpdateRoomType(grpc::ServerContext* context,
                                             const hotel::v1::UpdateRoomTypeRequest* request, RoomType* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
    if (auto s = api::ValidateRoomTypeId("id", request->id()); !s.ok()) return s;
    return repository_.UpdateRoomType(request->id(), request->room_type(), MaskPaths(request->update_mask()), if_match,
                                      response);
  });
}

grpc::Status RoomServiceImpl::CreateRoom(grpc::ServerContext* context, const hotel::v1::CreateRoomRequest* request,
                                         Room* response) {
  return api::Created(context, api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
                        auto room = ValidateCreateRoom(*request);
                        if (!room.ok()) return room.status();
                        return repository_.CreateRoom(*room, response);
                      }));
}

grpc::Status RoomServiceImpl::UpdateRoom(grpc::ServerContext* context, const hotel::v1::UpdateRoomRequest* request,
                                         Room* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
    if (auto s = api::ValidateRoomAddress(request->property_id(), request->number()); !s.ok()) return s;
    return repository_.UpdateRoom(request->property_id(), request->number(), request->room(),
                                  MaskPaths(request->update_mask()), if_match, response);
  });
}

grpc::Status RoomServiceImpl::ListAmenities(grpc::ServerContext* context,
                                            const hotel::v1::ListAmenitiesRequest* request,
                                            hotel::v1::ListAmenitiesResponse* response) {
  return api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
    for (const auto& entry : Amenities()) {
      auto* amenity = response->add_data();
      amenity->set_code(std::string(entry.code));
      amenity->set_label(std::string(entry.label));
    }
    return absl::OkStatus();
  });
}

}  // namespace hotel::rooms
