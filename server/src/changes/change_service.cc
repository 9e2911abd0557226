#include "changes/change_service.h"

#include "changes/change_watch.h"
#include "common/trace_context.h"

namespace hotel::changes {

using hotel::v1::WatchChangesResponse;

grpc::ServerUnaryReactor* ChangeServiceImpl::ListChanges(grpc::CallbackServerContext* context,
                                                         const hotel::v1::ListChangesRequest* request,
                                                         hotel::v1::ListChangesResponse* response) {
  return api::HandleRpc(context, readiness_, *request, [=, this]() -> absl::Status {
    auto query = ParseListChanges(*request);
    if (!query.ok()) return query.status();
    return repository_.List(*query, response);
  });
}

grpc::ServerWriteReactor<WatchChangesResponse>* ChangeServiceImpl::WatchChanges(
    grpc::CallbackServerContext* context, const hotel::v1::WatchChangesRequest* request) {
  absl::Status checked = api::CheckRequest(readiness_, *request);
  absl::StatusOr<ChangeQuery> query = checked.ok() ? ParseWatchChanges(*request) : absl::StatusOr<ChangeQuery>(checked);
  auto* watch = ChangeWatch::Start(context, std::move(query), repository_, hub_, executor_);
  // The call's span stays with the call, not with this thread, which serves other calls next.
  ClearRequestSpan(CurrentRequestSpan());
  return watch;
}

}  // namespace hotel::changes
