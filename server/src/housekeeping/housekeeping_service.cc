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

namespace v1 = hotel::v1;

class HousekeepingServiceImpl final : public api::AreaService<v1::HousekeepingService, HousekeepingRepository> {
 public:
  using AreaService::AreaService;

  // The If-Match header arrives as gRPC metadata "if-match" (api::IfMatchHeader).
  ServerUnaryReactor* UpdateRoomHousekeeping(CallbackServerContext* context,
                                             const v1::UpdateRoomHousekeepingRequest* request,
                                             v1::RoomHousekeeping* response) override {
    const std::string if_match = api::IfMatchHeader(context);
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(ValidateUpdateRoomHousekeeping(*request, if_match), [&](const auto& write) {
        google::protobuf::RepeatedPtrField<v1::RoomHousekeeping> rooms;
        if (auto s = repository_.Write(write, &rooms); !s.ok()) return s;
        *response = std::move(rooms[0]);
        return absl::OkStatus();
      });
    });
  }

  ServerUnaryReactor* SetHousekeeping(CallbackServerContext* context, const v1::SetHousekeepingRequest* request,
                                      v1::SetHousekeepingResponse* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(ValidateSetHousekeeping(*request),
                          [&](const auto& write) { return repository_.Write(write, response->mutable_rooms()); });
    });
  }

  ServerUnaryReactor* GetHousekeepingOverview(CallbackServerContext* context,
                                              const v1::GetHousekeepingOverviewRequest* request,
                                              v1::HousekeepingOverview* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(api::ValidatePropertyId("property_id", request->property_id()),
                          [&] { return repository_.Overview(request->property_id(), response); });
    });
  }

  ServerUnaryReactor* ListHousekeepingHistory(CallbackServerContext* context,
                                              const v1::ListHousekeepingHistoryRequest* request,
                                              v1::ListHousekeepingHistoryResponse* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(ParseListHousekeepingHistory(*request),
                          [&](const auto& query) { return repository_.History(query, response); });
    });
  }

  ServerUnaryReactor* GetHousekeepingPolicy(CallbackServerContext* context,
                                            const v1::GetHousekeepingPolicyRequest* request,
                                            v1::HousekeepingPolicy* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(api::ValidatePropertyId("property_id", request->property_id()),
                          [&] { return repository_.GetPolicy(request->property_id(), response); });
    });
  }

  // The If-Match header arrives as gRPC metadata "if-match" (api::IfMatchHeader).
  ServerUnaryReactor* UpdateHousekeepingPolicy(CallbackServerContext* context,
                                               const v1::UpdateHousekeepingPolicyRequest* request,
                                               v1::HousekeepingPolicy* response) override {
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
