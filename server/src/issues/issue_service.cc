#include "issues/issue_service.h"

#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "api/read_mask.h"
#include "api/update_mask.h"
#include "common/errors.h"

namespace hotel::issues {

using hotel::v1::CreateIssueRequest;
using hotel::v1::GetIssueRequest;
using hotel::v1::Issue;
using hotel::v1::ListIssuesRequest;
using hotel::v1::ListIssuesResponse;
using hotel::v1::UpdateIssueRequest;

grpc::ServerUnaryReactor* IssueServiceImpl::CreateIssue(grpc::CallbackServerContext* context,
                                                        const CreateIssueRequest* request, Issue* response) {
  return calls_.Run(context, *request, api::Created(context, [=, this] {
                      return api::IfValid(ValidateCreateIssue(*request),
                                          [&](const auto& issue) { return repository_.Create(issue, response); });
                    }));
}

grpc::ServerUnaryReactor* IssueServiceImpl::ListIssues(grpc::CallbackServerContext* context,
                                                       const ListIssuesRequest* request, ListIssuesResponse* response) {
  return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                      return api::IfValid(ParseListIssues(*request),
                                          [&](const auto& query) { return repository_.List(query, response); });
                    }));
}

grpc::ServerUnaryReactor* IssueServiceImpl::GetIssue(grpc::CallbackServerContext* context,
                                                     const GetIssueRequest* request, Issue* response) {
  return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                      return api::IfValid(api::ParseUuid("id", request->id()),
                                          [&](const auto& id) { return repository_.Get(id, response); });
                    }));
}

grpc::ServerUnaryReactor* IssueServiceImpl::BatchGetIssues(grpc::CallbackServerContext* context,
                                                           const hotel::v1::BatchGetIssuesRequest* request,
                                                           hotel::v1::BatchGetIssuesResponse* response) {
  return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                      return api::IfValid(ParseBatchGetIssues(*request),
                                          [&](const auto& ids) { return repository_.BatchGet(ids, response); });
                    }));
}

grpc::ServerUnaryReactor* IssueServiceImpl::UpdateIssue(grpc::CallbackServerContext* context,
                                                        const UpdateIssueRequest* request, Issue* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ParseUuid("id", request->id()), [&](const auto& id) {
      return repository_.Update(id, request->issue(), api::MaskPaths(request->update_mask()), if_match, response);
    });
  });
}

}  // namespace hotel::issues
