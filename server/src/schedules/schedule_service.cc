#include "schedules/schedule_service.h"

#include "absl/strings/ascii.h"
#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "common/errors.h"

namespace hotel::schedules {

using hotel::v1::ApplyScheduleActionRequest;
using hotel::v1::ApplyScheduleActionResponse;
using hotel::v1::CreateScheduleRequest;
using hotel::v1::ListSchedulesRequest;
using hotel::v1::ListSchedulesResponse;
using hotel::v1::Schedule;

grpc::ServerUnaryReactor* ScheduleServiceImpl::ListSchedules(grpc::CallbackServerContext* context,
                                                             const ListSchedulesRequest* request,
                                                             ListSchedulesResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ParseListSchedules(*request),
                        [&](const auto& query) { return repository_.List(query, response); });
  });
}

grpc::ServerUnaryReactor* ScheduleServiceImpl::CreateSchedule(grpc::CallbackServerContext* context,
                                                              const CreateScheduleRequest* request,
                                                              Schedule* response) {
  return calls_.Run(context, *request, api::Created(context, [=, this] {
                      return api::IfValid(ValidateCreateSchedule(*request),
                                          [&](const auto& schedule) { return repository_.Create(schedule, response); });
                    }));
}

grpc::ServerUnaryReactor* ScheduleServiceImpl::ApplyScheduleAction(grpc::CallbackServerContext* context,
                                                                   const ApplyScheduleActionRequest* request,
                                                                   ApplyScheduleActionResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ValidateScheduleAction(*request), [&](const auto& input) {
      return repository_.Complete(absl::AsciiStrToLower(request->id()), input, response);
    });
  });
}

}  // namespace hotel::schedules
