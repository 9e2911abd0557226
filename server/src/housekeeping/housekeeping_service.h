// gRPC handlers of hotel.v1.HousekeepingService: validate, call the repository.
#pragma once

#include "api/call_runner.h"
#include "hotel/v1/housekeeping.grpc.pb.h"
#include "housekeeping/housekeeping_repository.h"

namespace hotel::housekeeping {

class HousekeepingServiceImpl final : public hotel::v1::HousekeepingService::CallbackService {
 public:
  HousekeepingServiceImpl(HousekeepingRepository& repository, api::CallRunner& calls)
      : repository_(repository), calls_(calls) {}

  // The If-Match header arrives as gRPC metadata "if-match" (api::IfMatchHeader).
  grpc::ServerUnaryReactor* UpdateRoomHousekeeping(grpc::CallbackServerContext* context,
                                                   const hotel::v1::UpdateRoomHousekeepingRequest* request,
                                                   hotel::v1::RoomHousekeeping* response) override;
  grpc::ServerUnaryReactor* SetHousekeeping(grpc::CallbackServerContext* context,
                                            const hotel::v1::SetHousekeepingRequest* request,
                                            hotel::v1::SetHousekeepingResponse* response) override;
  grpc::ServerUnaryReactor* GetHousekeepingOverview(grpc::CallbackServerContext* context,
                                                    const hotel::v1::GetHousekeepingOverviewRequest* request,
                                                    hotel::v1::HousekeepingOverview* response) override;
  grpc::ServerUnaryReactor* ListHousekeepingHistory(grpc::CallbackServerContext* context,
                                                    const hotel::v1::ListHousekeepingHistoryRequest* request,
                                                    hotel::v1::ListHousekeepingHistoryResponse* response) override;

 private:
  HousekeepingRepository& repository_;
  api::CallRunner& calls_;
};

}  // namespace hotel::housekeeping
