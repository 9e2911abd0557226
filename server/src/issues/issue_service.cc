#include "issues/issue_service.h"

#include "api/area_service.h"
#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "api/read_mask.h"
#include "api/update_mask.h"
#include "common/errors.h"
#include "hotel/v1/maintenance.grpc.pb.h"
#include "issues/issue_repository.h"

namespace hotel::issues {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;

namespace v1 = hotel::v1;

class IssueServiceImpl final : public api::AreaService<v1::IssueService, IssueRepository> {
 public:
  using AreaService::AreaService;

  ServerUnaryReactor* CreateIssue(CallbackServerContext* context, const v1::CreateIssueRequest* request,
                                  v1::Issue* response) override {
    return calls_.Run(context, *request, api::Created(context, [=, this] {
                        return api::IfValid(ValidateCreateIssue(*request),
                                            [&](const auto& issue) { return repository_.Create(issue, response); });
                      }));
  }

  ServerUnaryReactor* ListIssues(CallbackServerContext* context, const v1::ListIssuesRequest* request,
                                 v1::ListIssuesResponse* response) override {
    return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                        return api::IfValid(ParseListIssues(*request),
                                            [&](const auto& query) { return repository_.List(query, response); });
                      }));
  }

  ServerUnaryReactor* GetIssue(CallbackServerContext* context, const v1::GetIssueRequest* request,
                               v1::Issue* response) override {
    return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                        return api::IfValid(api::ParseUuid("id", request->id()),
                                            [&](const auto& id) { return repository_.Get(id, response); });
                      }));
  }

  ServerUnaryReactor* BatchGetIssues(CallbackServerContext* context, const v1::BatchGetIssuesRequest* request,
                                     v1::BatchGetIssuesResponse* response) override {
    return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                        return api::IfValid(ParseBatchGetIssues(*request),
                                            [&](const auto& ids) { return repository_.BatchGet(ids, response); });
                      }));
  }

  // The If-Match header arrives as gRPC metadata "if-match" (api::IfMatchHeader).
  ServerUnaryReactor* UpdateIssue(CallbackServerContext* context, const v1::UpdateIssueRequest* request,
                                  v1::Issue* response) override {
    const std::string if_match = api::IfMatchHeader(context);
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(api::ParseUuid("id", request->id()), [&](const auto& id) {
        return repository_.Update(id, request->issue(), api::MaskPaths(request->update_mask()), if_match, response);
      });
    });
  }
};

}  // namespace

std::unique_ptr<grpc::Service> NewIssueService(db::ConnectionPool& pool, api::CallRunner& calls) {
  return std::make_unique<IssueServiceImpl>(pool, calls);
}

}  // namespace hotel::issues
