// gRPC handlers of hotel.v1.StatsService: issue statistics and the dashboard summary.
#pragma once

#include "api/call_runner.h"
#include "hotel/v1/maintenance.grpc.pb.h"
#include "stats/stats_repository.h"

namespace hotel::stats {

class StatsServiceImpl final : public hotel::v1::StatsService::CallbackService {
 public:
  StatsServiceImpl(StatsRepository& repository, api::CallRunner& calls) : repository_(repository), calls_(calls) {}

  grpc::ServerUnaryReactor* GetIssueStats(grpc::CallbackServerContext*, const hotel::v1::GetIssueStatsRequest* request,
                                          hotel::v1::IssueStats* response) override;
  grpc::ServerUnaryReactor* GetSummary(grpc::CallbackServerContext*, const hotel::v1::GetSummaryRequest* request,
                                       hotel::v1::Summary* response) override;

 private:
  StatsRepository& repository_;
  api::CallRunner& calls_;
};

}  // namespace hotel::stats
