// gRPC handlers of hotel.v1.ScheduleService: validate, call the repository, map errors.
#pragma once

#include "api/call_runner.h"
#include "hotel/v1/maintenance.grpc.pb.h"
#include "schedules/schedule_repository.h"

namespace hotel::schedules {

class ScheduleServiceImpl final : public hotel::v1::ScheduleService::CallbackService {
 public:
  ScheduleServiceImpl(ScheduleRepository& repository, api::CallRunner& calls)
      : repository_(repository), calls_(calls) {}

  grpc::ServerUnaryReactor* ListSchedules(grpc::CallbackServerContext*, const hotel::v1::ListSchedulesRequest* request,
                                          hotel::v1::ListSchedulesResponse* response) override;
  grpc::ServerUnaryReactor* CreateSchedule(grpc::CallbackServerContext* context,
                                           const hotel::v1::CreateScheduleRequest* request,
                                           hotel::v1::Schedule* response) override;
  grpc::ServerUnaryReactor* ApplyScheduleAction(grpc::CallbackServerContext*,
                                                const hotel::v1::ApplyScheduleActionRequest* request,
                                                hotel::v1::ApplyScheduleActionResponse* response) override;

 private:
  ScheduleRepository& repository_;
  api::CallRunner& calls_;
};

}  // namespace hotel::schedules
