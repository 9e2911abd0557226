#include "housekeeping/housekeeping_service.h"

#include "api/area_service.h"
#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "api/update_mask.h"
#include "hotel/v1/housekeeping.grpc.pb.h"
#include "housekeeping/housekeeping_repository.h"

namespace hotel::housekeeping {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;

using hotel::v1::GetHousekeepingOverviewRequest;
using hotel::v1::GetHousekeepingPolicyRequest;
using hotel::v1::HousekeepingOverview;
using hotel::v1::HousekeepingPolicy;
using hotel::v1::ListHousekeepingHistoryRequest;
using hotel::v1::ListHousekeepingHistoryResponse;
using hotel::v1::RoomHousekeeping;
using hotel::v1::SetHousekeepingRequest;
using hotel::v1::SetHousekeepingResponse;
using hotel::v1::UpdateHousekeepingPolicyRequest;
using hotel::v1::UpdateRoomHousekeepingRequest;

class HousekeepingServiceImpl final : public api::AreaService<hotel::v1::HousekeepingService, HousekeepingRepository> {
 public:
  using AreaService::AreaService;

  // The If-Match header arrives as gRPC metadata "if-match" (api::IfMatchHeader).
  ServerUnaryReactor* UpdateRoomHousekeeping(CallbackServerContext* context,
                                             const UpdateRoomHousekeepingRequest* request,
                                             RoomHousekeeping* response) override {
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

  ServerUnaryReactor* SetHousekeeping(CallbackServerContext* context, const SetHousekeepingRequest* request,
                                      SetHousekeepingResponse* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(ValidateSetHousekeeping(*request),
                          [&](const auto& write) { return repository_.Write(write, response->mutable_rooms()); });
    });
  }

  ServerUnaryReactor* GetHousekeepingOverview(CallbackServerContext* context,
                                              const GetHousekeepingOverviewRequest* request,
                                              HousekeepingOverview* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(api::ValidatePropertyId("property_id", request->property_id()),
                          [&] { return repository_.Overview(request->property_id(), response); });
    });
  }

  ServerUnaryReactor* ListHousekeepingHistory(CallbackServerContext* context,
                                              const ListHousekeepingHistoryRequest* request,
                                              ListHousekeepingHistoryResponse* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(ParseListHousekeepingHistory(*request),
                          [&](const auto& query) { return repository_.History(query, response); });
    });
  }

  ServerUnaryReactor* GetHousekeepingPolicy(CallbackServerContext* context, const GetHousekeepingPolicyRequest* request,
                                            HousekeepingPolicy* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(api::ValidatePropertyId("property_id", request->property_id()),
                          [&] { return repository_.GetPolicy(request->property_id(), response); });
    });
  }

  // The If-Match header arrives as gRPC metadata "if-match" (api::IfMatchHeader).
  ServerUnaryReactor* UpdateHousekeepingPolicy(CallbackServerContext* context,
                                               const UpdateHousekeepingPolicyRequest* request,
                                               HousekeepingPolicy* response) override {
    const std::string if_match = api::IfMatchHeader(context);
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(api::ValidatePropertyId("property_id", request->property_id()), [&] {
        return repository_.UpdatePolicy(request->property_id(), request->policy(),
                                        api::MaskPaths(request->update_mask()), if_match, response);
      });
    });
  }
};

}  // namespace

std::unique_ptr<grpc::Service> NewHousekeepingService(db::ConnectionPool& pool, api::CallRunner& calls) {
  return std::make_unique<HousekeepingServiceImpl>(pool, calls);
}

}  // namespace hotel::housekeeping
