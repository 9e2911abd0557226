// gRPC handlers of hotel.v1.IssueService: validate, call the repository, map errors.
#pragma once

#include "api/call_runner.h"
#include "hotel/v1/maintenance.grpc.pb.h"
#include "issues/issue_repository.h"

namespace hotel::issues {

class IssueServiceImpl final : public hotel::v1::IssueService::CallbackService {
 public:
  IssueServiceImpl(IssueRepository& repository, api::CallRunner& calls) : repository_(repository), calls_(calls) {}

  grpc::ServerUnaryReactor* CreateIssue(grpc::CallbackServerContext* context,
                                        const hotel::v1::CreateIssueRequest* request,
                                        hotel::v1::Issue* response) override;
  grpc::ServerUnaryReactor* ListIssues(grpc::CallbackServerContext*, const hotel::v1::ListIssuesRequest* request,
                                       hotel::v1::ListIssuesResponse* response) override;
  grpc::ServerUnaryReactor* GetIssue(grpc::CallbackServerContext*, const hotel::v1::GetIssueRequest* request,
                                     hotel::v1::Issue* response) override;
  grpc::ServerUnaryReactor* BatchGetIssues(grpc::CallbackServerContext*,
                                           const hotel::v1::BatchGetIssuesRequest* request,
                                           hotel::v1::BatchGetIssuesResponse* response) override;
  // The If-Match header arrives as gRPC metadata "if-match" (api::IfMatchHeader).
  grpc::ServerUnaryReactor* UpdateIssue(grpc::CallbackServerContext* context,
                                        const hotel::v1::UpdateIssueRequest* request,
                                        hotel::v1::Issue* response) override;

 private:
  IssueRepository& repository_;
  api::CallRunner& calls_;
};

}  // namespace hotel::issues
