#include "rooms/room_service.h"

#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "api/read_mask.h"
#include "api/update_mask.h"
#include "common/errors.h"

namespace hotel::rooms {

namespace v1 = hotel::v1;

grpc::ServerUnaryReactor* RoomServiceImpl::ListProperties(grpc::CallbackServerContext* context,
                                                          const v1::ListPropertiesRequest* request,
                                                          v1::ListPropertiesResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ParseListProperties(*request),
                        [&](const auto& query) { return repository_.ListProperties(query, response); });
  });
}

grpc::ServerUnaryReactor* RoomServiceImpl::GetProperty(grpc::CallbackServerContext* context,
                                                       const v1::GetPropertyRequest* request, v1::Property* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ValidatePropertyId("id", request->id()),
                        [&] { return repository_.GetProperty(request->id(), response); });
  });
}

grpc::ServerUnaryReactor* RoomServiceImpl::ListRoomTypes(grpc::CallbackServerContext* context,
                                                         const v1::ListRoomTypesRequest* request,
                                                         v1::ListRoomTypesResponse* response) {
  return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                      return api::IfValid(ParseListRoomTypes(*request), [&](const auto& query) {
                        return repository_.ListRoomTypes(query, response);
                      });
                    }));
}

grpc::ServerUnaryReactor* RoomServiceImpl::GetRoomType(grpc::CallbackServerContext* context,
                                                       const v1::GetRoomTypeRequest* request, v1::RoomType* response) {
  return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                      return api::IfValid(api::ValidateRoomTypeId("id", request->id()),
                                          [&] { return repository_.GetRoomType(request->id(), response); });
                    }));
}

grpc::ServerUnaryReactor* RoomServiceImpl::ListRooms(grpc::CallbackServerContext* context,
                                                     const v1::ListRoomsRequest* request,
                                                     v1::ListRoomsResponse* response) {
  return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                      return api::IfValid(ParseListRooms(*request),
                                          [&](const auto& query) { return repository_.ListRooms(query, response); });
                    }));
}

grpc::ServerUnaryReactor* RoomServiceImpl::BatchGetRooms(grpc::CallbackServerContext* context,
                                                         const v1::BatchGetRoomsRequest* request,
                                                         v1::BatchGetRoomsResponse* response) {
  return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                      return api::IfValid(ParseBatchGetRooms(*request), [&](const auto& query) {
                        return repository_.BatchGetRooms(query, response);
                      });
                    }));
}

grpc::ServerUnaryReactor* RoomServiceImpl::GetRoom(grpc::CallbackServerContext* context,
                                                   const v1::GetRoomRequest* request, v1::Room* response) {
  // Only valid addresses of a started server are ever cached, so a hit needs no further checks:
  // it is answered here, on gRPC's thread, for what Health/Check costs.
  if (repository_.GetCachedRoom(request->property_id(), request->number(), response)) {
    return api::Finish(context, api::ReadMasked(context, *request, response, [] { return absl::OkStatus(); })());
  }
  return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                      return api::IfValid(api::ValidateRoomAddress(request->property_id(), request->number()), [&] {
                        // GetCachedRoom missed
                        return repository_.LoadRoom(request->property_id(), request->number(), response);
                      });
                    }));
}

grpc::ServerUnaryReactor* RoomServiceImpl::CreateProperty(grpc::CallbackServerContext* context,
                                                          const v1::CreatePropertyRequest* request,
                                                          v1::Property* response) {
  return calls_.Run(context, *request, api::Created(context, [=, this] {
                      return api::IfValid(ValidateCreateProperty(*request), [&](const auto& property) {
                        return repository_.CreateProperty(property, response);
                      });
                    }));
}

grpc::ServerUnaryReactor* RoomServiceImpl::UpdateProperty(grpc::CallbackServerContext* context,
                                                          const v1::UpdatePropertyRequest* request,
                                                          v1::Property* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ValidatePropertyId("id", request->id()), [&] {
      return repository_.UpdateProperty(request->id(), request->property(), api::MaskPaths(request->update_mask()),
                                        if_match, response);
    });
  });
}

grpc::ServerUnaryReactor* RoomServiceImpl::CreateRoomType(grpc::CallbackServerContext* context,
                                                          const v1::CreateRoomTypeRequest* request,
                                                          v1::RoomType* response) {
  return calls_.Run(context, *request, api::Created(context, [=, this] {
                      return api::IfValid(ValidateCreateRoomType(*request), [&](const auto& room_type) {
                        return repository_.CreateRoomType(room_type, response);
                      });
                    }));
}

grpc::ServerUnaryReactor* RoomServiceImpl::UpdateRoomType(grpc::CallbackServerContext* context,
                                                          const v1::UpdateRoomTypeRequest* request,
                                                          v1::RoomType* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ValidateRoomTypeId("id", request->id()), [&] {
      return repository_.UpdateRoomType(request->id(), request->room_type(), api::MaskPaths(request->update_mask()),
                                        if_match, response);
    });
  });
}

grpc::ServerUnaryReactor* RoomServiceImpl::CreateRoom(grpc::CallbackServerContext* context,
                                                      const v1::CreateRoomRequest* request, v1::Room* response) {
  return calls_.Run(context, *request, api::Created(context, [=, this] {
                      return api::IfValid(ValidateCreateRoom(*request),
                                          [&](const auto& room) { return repository_.CreateRoom(room, response); });
                    }));
}

grpc::ServerUnaryReactor* RoomServiceImpl::UpdateRoom(grpc::CallbackServerContext* context,
                                                      const v1::UpdateRoomRequest* request, v1::Room* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ValidateRoomAddress(request->property_id(), request->number()), [&] {
      return repository_.UpdateRoom(request->property_id(), request->number(), request->room(),
                                    api::MaskPaths(request->update_mask()), if_match, response);
    });
  });
}

grpc::ServerUnaryReactor* RoomServiceImpl::ListAmenities(grpc::CallbackServerContext* context,
                                                         const v1::ListAmenitiesRequest* request,
                                                         v1::ListAmenitiesResponse* response) {
  return calls_.RunInline(context, *request, [=, this]() -> absl::Status {
    for (const auto& entry : Amenities()) {
      auto* amenity = response->add_data();
      amenity->set_code(std::string(entry.code));
      amenity->set_label(std::string(entry.label));
    }
    return absl::OkStatus();
  });
}

}  // namespace hotel::rooms
