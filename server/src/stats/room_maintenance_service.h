// gRPC handler of hotel.v1.MaintenanceService (a room's maintenance overview).
#pragma once

#include "api/call_runner.h"
#include "hotel/v1/maintenance.grpc.pb.h"
#include "stats/stats_repository.h"

namespace hotel::stats {

class MaintenanceServiceImpl final : public hotel::v1::MaintenanceService::CallbackService {
 public:
  MaintenanceServiceImpl(StatsRepository& repository, api::CallRunner& calls)
      : repository_(repository), calls_(calls) {}

  grpc::ServerUnaryReactor* GetRoomMaintenance(grpc::CallbackServerContext*,
                                               const hotel::v1::GetRoomMaintenanceRequest* request,
                                               hotel::v1::RoomMaintenance* response) override;

 private:
  StatsRepository& repository_;
  api::CallRunner& calls_;
};

}  // namespace hotel::stats
