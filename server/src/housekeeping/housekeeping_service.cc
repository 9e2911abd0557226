#include "housekeeping/housekeeping_service.h"

#include "api/gateway_metadata.h"
#include "api/identifiers.h"

namespace hotel::housekeeping {

using hotel::v1::GetHousekeepingOverviewRequest;
using hotel::v1::HousekeepingOverview;
using hotel::v1::ListHousekeepingHistoryRequest;
using hotel::v1::ListHousekeepingHistoryResponse;
using hotel::v1::RoomHousekeeping;
using hotel::v1::SetHousekeepingRequest;
using hotel::v1::SetHousekeepingResponse;
using hotel::v1::UpdateRoomHousekeepingRequest;

grpc::ServerUnaryReactor* HousekeepingServiceImpl::UpdateRoomHousekeeping(grpc::CallbackServerContext* context,
                                                                          const UpdateRoomHousekeepingRequest* request,
                                                                          RoomHousekeeping* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ValidateUpdateRoomHousekeeping(*request, if_match), [&](const auto& write) {
      google::protobuf::RepeatedPtrField<RoomHousekeeping> rooms;
      if (auto s = repository_.Write(write, &rooms); !s.ok()) return s;
      *response = std::move(rooms[0]);
      return absl::OkStatus();
    });
  });
}

grpc::ServerUnaryReactor* HousekeepingServiceImpl::SetHousekeeping(grpc::CallbackServerContext* context,
                                                                   const SetHousekeepingRequest* request,
                                                                   SetHousekeepingResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ValidateSetHousekeeping(*request),
                        [&](const auto& write) { return repository_.Write(write, response->mutable_rooms()); });
  });
}

grpc::ServerUnaryReactor* HousekeepingServiceImpl::GetHousekeepingOverview(
    grpc::CallbackServerContext* context, const GetHousekeepingOverviewRequest* request,
    HousekeepingOverview* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ValidatePropertyId("property_id", request->property_id()),
                        [&] { return repository_.Overview(request->property_id(), response); });
  });
}

grpc::ServerUnaryReactor* HousekeepingServiceImpl::ListHousekeepingHistory(
    grpc::CallbackServerContext* context, const ListHousekeepingHistoryRequest* request,
    ListHousekeepingHistoryResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ParseListHousekeepingHistory(*request),
                        [&](const auto& query) { return repository_.History(query, response); });
  });
}

}  // namespace hotel::housekeeping
