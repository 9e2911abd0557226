#include "changes/change_service.h"

#include <grpcpp/support/proto_buffer_reader.h>

#include "changes/change_watch.h"
#include "common/errors.h"

namespace hotel::changes {

grpc::ServerUnaryReactor* ChangeServiceImpl::ListChanges(grpc::CallbackServerContext* context,
                                                         const hotel::v1::ListChangesRequest* request,
                                                         hotel::v1::ListChangesResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ParseListChanges(*request),
                        [&](const auto& query) { return repository_.List(query, response); });
  });
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* ChangeServiceImpl::WatchChanges(grpc::CallbackServerContext* context,
                                                                            const grpc::ByteBuffer* raw) {
  CallContext call = calls_.StreamContext(context);
  hotel::v1::WatchChangesRequest request;
  grpc::ByteBuffer copy(*raw);  // shares the slices; parsing consumes it
  absl::Status checked =
      grpc::GenericDeserialize<grpc::ProtoBufferReader, hotel::v1::WatchChangesRequest>(&copy, &request).ok()
          ? calls_.CheckRequest(request)
          : InvalidField("request", "not a valid WatchChangesRequest (text must be UTF-8)");
  absl::StatusOr<ChangeQuery> query = checked.ok() ? ParseWatchChanges(request) : absl::StatusOr<ChangeQuery>(checked);
  return ChangeWatch::Start(context, std::move(call), std::move(query), repository_, source_, calls_);
}

}  // namespace hotel::changes
