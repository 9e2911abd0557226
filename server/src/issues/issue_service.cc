#include "issues/issue_service.h"

#include "absl/strings/ascii.h"
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
  return calls_.Run(context, *request, api::Created(context, [=, this]() -> absl::Status {
                      auto issue = ValidateCreateIssue(*request);
                      if (!issue.ok()) return issue.status();
                      return repository_.Create(*issue, response);
                    }));
}

grpc::ServerUnaryReactor* IssueServiceImpl::ListIssues(grpc::CallbackServerContext* context,
                                                       const ListIssuesRequest* request, ListIssuesResponse* response) {
  return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this]() -> absl::Status {
                      auto query = ParseListIssues(*request);
                      if (!query.ok()) return query.status();
                      return repository_.List(*query, response);
                    }));
}

grpc::ServerUnaryReactor* IssueServiceImpl::GetIssue(grpc::CallbackServerContext* context,
                                                     const GetIssueRequest* request, Issue* response) {
  return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this]() -> absl::Status {
                      if (auto s = api::ValidateUuid("id", request->id()); !s.ok()) return s;
                      return repository_.Get(absl::AsciiStrToLower(request->id()), response);
                    }));
}

grpc::ServerUnaryReactor* IssueServiceImpl::BatchGetIssues(grpc::CallbackServerContext* context,
                                                           const hotel::v1::BatchGetIssuesRequest* request,
                                                           hotel::v1::BatchGetIssuesResponse* response) {
  return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this]() -> absl::Status {
                      auto ids = ParseBatchGetIssues(*request);
                      if (!ids.ok()) return ids.status();
                      return repository_.BatchGet(*ids, response);
                    }));
}

grpc::ServerUnaryReactor* IssueServiceImpl::UpdateIssue(grpc::CallbackServerContext* context,
                                                        const UpdateIssueRequest* request, Issue* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return calls_.Run(context, *request, [=, this]() -> absl::Status {
    if (auto s = api::ValidateUuid("id", request->id()); !s.ok()) return s;
    const std::vector<std::string> mask = api::MaskPaths(request->update_mask());
    return repository_.Update(absl::AsciiStrToLower(request->id()), request->issue(), mask, if_match, response);
  });
}

}  // namespace hotel::issues
