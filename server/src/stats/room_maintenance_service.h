// gRPC handler of hotel.v1.MaintenanceService (a room's maintenance overview).
#pragma once

#include "api/handle_rpc.h"
#include "hotel/v1/maintenance.grpc.pb.h"
#include "stats/stats_repository.h"

namespace hotel::stats {

class MaintenanceServiceImpl final : public hotel::v1::MaintenanceService::CallbackService {
 public:
  MaintenanceServiceImpl(StatsRepository& repository, const api::Readiness& readiness)
      : repository_(repository), readiness_(readiness) {}

  grpc::ServerUnaryReactor* GetRoomMaintenance(grpc::CallbackServerContext*,
                                               const hotel::v1::GetRoomMaintenanceRequest* request,
                                               hotel::v1::RoomMaintenance* response) override;

 private:
  StatsRepository& repository_;
  const api::Readiness& readiness_;
};

}  // namespace hotel::stats
