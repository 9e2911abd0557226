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

using hotel::v1::CreateIssueRequest;
using hotel::v1::GetIssueRequest;
using hotel::v1::Issue;
using hotel::v1::ListIssuesRequest;
using hotel::v1::ListIssuesResponse;
using hotel::v1::UpdateIssueRequest;

class IssueServiceImpl final : public api::AreaService<hotel::v1::IssueService, IssueRepository> {
 public:
  using AreaService::AreaService;

  ServerUnaryReactor* CreateIssue(CallbackServerContext* context, const CreateIssueRequest* request,
                                  Issue* response) override {
    return calls_.Run(context, *request, api::Created(context, [=, this] {
                        return api::IfValid(ValidateCreateIssue(*request),
                                            [&](const auto& issue) { return repository_.Create(issue, response); });
                      }));
  }

  ServerUnaryReactor* ListIssues(CallbackServerContext* context, const ListIssuesRequest* request,
                                 ListIssuesResponse* response) override {
    return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                        return api::IfValid(ParseListIssues(*request),
                                            [&](const auto& query) { return repository_.List(query, response); });
                      }));
  }

  ServerUnaryReactor* GetIssue(CallbackServerContext* context, const GetIssueRequest* request,
                               Issue* response) override {
    return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                        return api::IfValid(api::ParseUuid("id", request->id()),
                                            [&](const auto& id) { return repository_.Get(id, response); });
                      }));
  }

  ServerUnaryReactor* BatchGetIssues(CallbackServerContext* context, const hotel::v1::BatchGetIssuesRequest* request,
                                     hotel::v1::BatchGetIssuesResponse* response) override {
    return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                        return api::IfValid(ParseBatchGetIssues(*request),
                                            [&](const auto& ids) { return repository_.BatchGet(ids, response); });
                      }));
  }

  // The If-Match header arrives as gRPC metadata "if-match" (api::IfMatchHeader).
  ServerUnaryReactor* UpdateIssue(CallbackServerContext* context, const UpdateIssueRequest* request,
                                  Issue* response) override {
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
