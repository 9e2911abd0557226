#include "stats/room_maintenance_service.h"

#include "api/area_service.h"
#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "common/errors.h"
#include "hotel/v1/maintenance.grpc.pb.h"
#include "stats/stats_repository.h"

namespace hotel::stats {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;

namespace v1 = hotel::v1;

class MaintenanceServiceImpl final : public api::AreaService<v1::MaintenanceService, StatsRepository> {
 public:
  using AreaService::AreaService;

  ServerUnaryReactor* GetRoomMaintenance(CallbackServerContext* context, const v1::GetRoomMaintenanceRequest* request,
                                         v1::RoomMaintenance* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(api::ValidateRoomAddress(request->property_id(), request->number()), [&] {
        return repository_.RoomMaintenance(request->property_id(), request->number(), response);
      });
    });
  }
};

}  // namespace

std::unique_ptr<grpc::Service> NewMaintenanceService(db::ConnectionPool& pool, api::CallRunner& calls) {
  return std::make_unique<MaintenanceServiceImpl>(pool, calls);
}

}  // namespace hotel::stats
