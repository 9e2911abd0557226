#include "stats/stats_service.h"

#include "api/area_service.h"
#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "common/errors.h"
#include "hotel/v1/maintenance.grpc.pb.h"
#include "stats/stats_repository.h"

namespace hotel::stats {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;

namespace v1 = hotel::v1;

class StatsServiceImpl final : public api::AreaService<v1::StatsService, StatsRepository> {
 public:
  using AreaService::AreaService;

  ServerUnaryReactor* GetIssueStats(CallbackServerContext* context, const v1::GetIssueStatsRequest* request,
                                    v1::IssueStats* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(ParseIssueStats(*request),
                          [&](const auto& query) { return repository_.IssueStats(query, response); });
    });
  }

  ServerUnaryReactor* GetSummary(CallbackServerContext* context, const v1::GetSummaryRequest* request,
                                 v1::Summary* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(ParseSummary(*request),
                          [&](const auto& query) { return repository_.Summary(query, response); });
    });
  }
};

}  // namespace

std::unique_ptr<grpc::Service> NewStatsService(db::ConnectionPool& pool, api::CallRunner& calls) {
  return std::make_unique<StatsServiceImpl>(pool, calls);
}

}  // namespace hotel::stats
