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

namespace v1 = hotel::v1;

class ScheduleServiceImpl final : public api::AreaService<v1::ScheduleService, ScheduleRepository> {
 public:
  using AreaService::AreaService;

  ServerUnaryReactor* ListSchedules(CallbackServerContext* context, const v1::ListSchedulesRequest* request,
                                    v1::ListSchedulesResponse* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(ParseListSchedules(*request),
                          [&](const auto& query) { return repository_.List(query, response); });
    });
  }

  ServerUnaryReactor* CreateSchedule(CallbackServerContext* context, const v1::CreateScheduleRequest* request,
                                     v1::Schedule* response) override {
    return calls_.Run(context, *request, api::Created(context, [=, this] {
                        return api::IfValid(ValidateCreateSchedule(*request), [&](const auto& schedule) {
                          return repository_.Create(schedule, response);
                        });
                      }));
  }

  ServerUnaryReactor* ApplyScheduleAction(CallbackServerContext* context, const v1::ApplyScheduleActionRequest* request,
                                          v1::ApplyScheduleActionResponse* response) override {
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
