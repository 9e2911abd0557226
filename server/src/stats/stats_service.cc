#include "stats/stats_service.h"

#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "common/errors.h"

namespace hotel::stats {

using hotel::v1::GetIssueStatsRequest;
using hotel::v1::GetSummaryRequest;
using hotel::v1::IssueStats;
using hotel::v1::Summary;

grpc::ServerUnaryReactor* StatsServiceImpl::GetIssueStats(grpc::CallbackServerContext* context,
                                                          const GetIssueStatsRequest* request, IssueStats* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ParseIssueStats(*request),
                        [&](const auto& query) { return repository_.IssueStats(query, response); });
  });
}

grpc::ServerUnaryReactor* StatsServiceImpl::GetSummary(grpc::CallbackServerContext* context,
                                                       const GetSummaryRequest* request, Summary* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ParseSummary(*request),
                        [&](const auto& query) { return repository_.Summary(query, response); });
  });
}

}  // namespace hotel::stats
