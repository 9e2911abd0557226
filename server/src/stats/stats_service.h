// gRPC handlers of hotel.v1.StatsService: issue statistics and the dashboard summary.
#pragma once

#include "api/handle_rpc.h"
#include "hotel/v1/maintenance.grpc.pb.h"
#include "stats/stats_repository.h"

namespace hotel::stats {

class StatsServiceImpl final : public hotel::v1::StatsService::CallbackService {
 public:
  StatsServiceImpl(StatsRepository& repository, const api::Readiness& readiness)
      : repository_(repository), readiness_(readiness) {}

  grpc::ServerUnaryReactor* GetIssueStats(grpc::CallbackServerContext*, const hotel::v1::GetIssueStatsRequest* request,
                                          hotel::v1::IssueStats* response) override;
  grpc::ServerUnaryReactor* GetSummary(grpc::CallbackServerContext*, const hotel::v1::GetSummaryRequest* request,
                                       hotel::v1::Summary* response) override;

 private:
  StatsRepository& repository_;
  const api::Readiness& readiness_;
};

}  // namespace hotel::stats
