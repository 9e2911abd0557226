// gRPC handlers of the maintenance services: validate, call the repository, map errors.
#pragma once

#include "api/handle_rpc.h"
#include "hotel/v1/maintenance.grpc.pb.h"
#include "maintenance/issue_repository.h"
#include "maintenance/schedule_repository.h"
#include "maintenance/stats_repository.h"

namespace hotel::maintenance {

class EquipmentServiceImpl final : public hotel::v1::EquipmentService::Service {
 public:
  EquipmentServiceImpl(EquipmentRepository& repository, const api::Readiness& readiness)
      : repository_(repository), readiness_(readiness) {}

  grpc::Status ListEquipment(grpc::ServerContext*, const hotel::v1::ListEquipmentRequest* request,
                             hotel::v1::ListEquipmentResponse* response) override;
  grpc::Status CreateEquipment(grpc::ServerContext* context, const hotel::v1::CreateEquipmentRequest* request,
                               hotel::v1::Equipment* response) override;

 private:
  EquipmentRepository& repository_;
  const api::Readiness& readiness_;
};

class ScheduleServiceImpl final : public hotel::v1::ScheduleService::Service {
 public:
  ScheduleServiceImpl(ScheduleRepository& repository, const api::Readiness& readiness)
      : repository_(repository), readiness_(readiness) {}

  grpc::Status ListSchedules(grpc::ServerContext*, const hotel::v1::ListSchedulesRequest* request,
                             hotel::v1::ListSchedulesResponse* response) override;
  grpc::Status CreateSchedule(grpc::ServerContext* context, const hotel::v1::CreateScheduleRequest* request,
                              hotel::v1::Schedule* response) override;
  grpc::Status ApplyScheduleAction(grpc::ServerContext*, const hotel::v1::ApplyScheduleActionRequest* request,
                                   hotel::v1::ApplyScheduleActionResponse* response) override;

 private:
  ScheduleRepository& repository_;
  const api::Readiness& readiness_;
};

class IssueServiceImpl final : public hotel::v1::IssueService::Service {
 public:
  IssueServiceImpl(IssueRepository& repository, const api::Readiness& readiness)
      : repository_(repository), readiness_(readiness) {}

  grpc::Status CreateIssue(grpc::ServerContext* context, const hotel::v1::CreateIssueRequest* request,
                           hotel::v1::Issue* response) override;
  grpc::Status ListIssues(grpc::ServerContext*, const hotel::v1::ListIssuesRequest* request,
                          hotel::v1::ListIssuesResponse* response) override;
  grpc::Status GetIssue(grpc::ServerContext*, const hotel::v1::GetIssueRequest* request,
                        hotel::v1::Issue* response) override;
  // The If-Match header arrives as gRPC metadata "if-match" (api::IfMatchHeader).
  grpc::Status UpdateIssue(grpc::ServerContext* context, const hotel::v1::UpdateIssueRequest* request,
                           hotel::v1::Issue* response) override;

 private:
  IssueRepository& repository_;
  const api::Readiness& readiness_;
};

class MaintenanceServiceImpl final : public hotel::v1::MaintenanceService::Service {
 public:
  MaintenanceServiceImpl(StatsRepository& repository, const api::Readiness& readiness)
      : repository_(repository), readiness_(readiness) {}

  grpc::Status GetRoomMaintenance(grpc::ServerContext*, const hotel::v1::GetRoomMaintenanceRequest* request,
                                  hotel::v1::RoomMaintenance* response) override;

 private:
  StatsRepository& repository_;
  const api::Readiness& readiness_;
};

class StatsServiceImpl final : public hotel::v1::StatsService::Service {
 public:
  StatsServiceImpl(StatsRepository& repository, const api::Readiness& readiness)
      : repository_(repository), readiness_(readiness) {}

  grpc::Status GetIssueStats(grpc::ServerContext*, const hotel::v1::GetIssueStatsRequest* request,
                             hotel::v1::IssueStats* response) override;
  grpc::Status GetSummary(grpc::ServerContext*, const hotel::v1::GetSummaryRequest* request,
                          hotel::v1::Summary* response) override;

 private:
  StatsRepository& repository_;
  const api::Readiness& readiness_;
};

}  // namespace hotel::maintenance
