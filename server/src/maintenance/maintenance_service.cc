#include "maintenance/maintenance_service.h"

#include "absl/strings/ascii.h"
#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "common/errors.h"

namespace hotel::maintenance {

using namespace hotel::v1;

namespace {

// A create answers 201 Created over REST, also when a retry with the same request_id returns
// the record created first.
grpc::Status Created(grpc::ServerContext* context, grpc::Status status) {
  if (status.ok()) api::SetHttpStatus(context, 201);
  return status;
}

}  // namespace

grpc::Status EquipmentServiceImpl::ListEquipment(grpc::ServerContext*, const ListEquipmentRequest* request,
                                                 ListEquipmentResponse* response) {
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    auto query = ParseListEquipment(*request);
    if (!query.ok()) return query.status();
    return repository_.List(*query, response);
  });
}

grpc::Status EquipmentServiceImpl::CreateEquipment(grpc::ServerContext* context, const CreateEquipmentRequest* request,
                                                   Equipment* response) {
  return Created(context, api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    auto equipment = ValidateCreateEquipment(*request);
    if (!equipment.ok()) return equipment.status();
    return repository_.Create(*equipment, response);
  }));
}

grpc::Status ScheduleServiceImpl::ListSchedules(grpc::ServerContext*, const ListSchedulesRequest* request,
                                                ListSchedulesResponse* response) {
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    auto query = ParseListSchedules(*request);
    if (!query.ok()) return query.status();
    return repository_.List(*query, response);
  });
}

grpc::Status ScheduleServiceImpl::CreateSchedule(grpc::ServerContext* context, const CreateScheduleRequest* request,
                                                 Schedule* response) {
  return Created(context, api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    auto schedule = ValidateCreateSchedule(*request);
    if (!schedule.ok()) return schedule.status();
    return repository_.Create(*schedule, response);
  }));
}

grpc::Status ScheduleServiceImpl::ApplyScheduleAction(grpc::ServerContext*, const ApplyScheduleActionRequest* request,
                                                      ApplyScheduleActionResponse* response) {
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    auto input = ValidateScheduleAction(*request);
    if (!input.ok()) return input.status();
    return repository_.Complete(absl::AsciiStrToLower(request->id()), *input, response);
  });
}

grpc::Status IssueServiceImpl::CreateIssue(grpc::ServerContext* context, const CreateIssueRequest* request,
                                           Issue* response) {
  return Created(context, api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    auto issue = ValidateCreateIssue(*request);
    if (!issue.ok()) return issue.status();
    return repository_.Create(*issue, response);
  }));
}

grpc::Status IssueServiceImpl::ListIssues(grpc::ServerContext*, const ListIssuesRequest* request,
                                          ListIssuesResponse* response) {
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    auto query = ParseListIssues(*request);
    if (!query.ok()) return query.status();
    return repository_.List(*query, response);
  });
}

grpc::Status IssueServiceImpl::GetIssue(grpc::ServerContext*, const GetIssueRequest* request, Issue* response) {
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    if (auto s = api::ValidateUuid("id", request->id()); !s.ok()) return s;
    return repository_.Get(absl::AsciiStrToLower(request->id()), response);
  });
}

grpc::Status IssueServiceImpl::UpdateIssue(grpc::ServerContext* context, const UpdateIssueRequest* request,
                                           Issue* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    if (auto s = api::ValidateUuid("id", request->id()); !s.ok()) return s;
    std::vector<std::string> mask(request->update_mask().paths().begin(), request->update_mask().paths().end());
    return repository_.Update(absl::AsciiStrToLower(request->id()), request->issue(), mask, if_match, response);
  });
}

grpc::Status MaintenanceServiceImpl::GetRoomMaintenance(grpc::ServerContext*,
                                                        const GetRoomMaintenanceRequest* request,
                                                        RoomMaintenance* response) {
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    if (auto s = api::ValidateRoomAddress(request->property_id(), request->number()); !s.ok()) return s;
    return repository_.RoomMaintenance(request->property_id(), request->number(), response);
  });
}

grpc::Status StatsServiceImpl::GetIssueStats(grpc::ServerContext*, const GetIssueStatsRequest* request,
                                             IssueStats* response) {
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    auto query = ParseIssueStats(*request);
    if (!query.ok()) return query.status();
    return repository_.IssueStats(*query, response);
  });
}

grpc::Status StatsServiceImpl::GetSummary(grpc::ServerContext*, const GetSummaryRequest* request,
                                          Summary* response) {
  return api::HandleRpc(readiness_, *request, [&]() -> absl::Status {
    auto query = ParseSummary(*request);
    if (!query.ok()) return query.status();
    return repository_.Summary(*query, response);
  });
}

}  // namespace hotel::maintenance
