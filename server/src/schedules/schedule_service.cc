#include "schedules/schedule_service.h"

#include "absl/strings/ascii.h"
#include "api/area_service.h"
#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "common/errors.h"
#include "hotel/v1/maintenance.grpc.pb.h"
#include "schedules/schedule_repository.h"

namespace hotel::schedules {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;

using hotel::v1::ApplyScheduleActionRequest;
using hotel::v1::ApplyScheduleActionResponse;
using hotel::v1::CreateScheduleRequest;
using hotel::v1::ListSchedulesRequest;
using hotel::v1::ListSchedulesResponse;
using hotel::v1::Schedule;

class ScheduleServiceImpl final : public api::AreaService<hotel::v1::ScheduleService, ScheduleRepository> {
 public:
  using AreaService::AreaService;

  ServerUnaryReactor* ListSchedules(CallbackServerContext* context, const ListSchedulesRequest* request,
                                    ListSchedulesResponse* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(ParseListSchedules(*request),
                          [&](const auto& query) { return repository_.List(query, response); });
    });
  }

  ServerUnaryReactor* CreateSchedule(CallbackServerContext* context, const CreateScheduleRequest* request,
                                     Schedule* response) override {
    return calls_.Run(context, *request, api::Created(context, [=, this] {
                        return api::IfValid(ValidateCreateSchedule(*request), [&](const auto& schedule) {
                          return repository_.Create(schedule, response);
                        });
                      }));
  }

  ServerUnaryReactor* ApplyScheduleAction(CallbackServerContext* context, const ApplyScheduleActionRequest* request,
                                          ApplyScheduleActionResponse* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(ValidateScheduleAction(*request), [&](const auto& input) {
        return repository_.Complete(absl::AsciiStrToLower(request->id()), input, response);
      });
    });
  }
};

}  // namespace

std::unique_ptr<grpc::Service> NewScheduleService(db::ConnectionPool& pool, api::CallRunner& calls) {
  return std::make_unique<ScheduleServiceImpl>(pool, calls);
}

}  // namespace hotel::schedules
