// gRPC handlers of hotel.v1.ChangeService. A watcher holds no thread: each WatchChanges call is
// a ChangeWatch reactor that the hub notifies (changes/change_watch.h).
#pragma once

#include "api/handle_rpc.h"
#include "changes/change_hub.h"
#include "changes/change_repository.h"
#include "hotel/v1/changes.grpc.pb.h"

namespace hotel::changes {

// WatchChanges is a raw method (bytes in and out): its messages are serialized once by the hub.
class ChangeServiceImpl final
    : public hotel::v1::ChangeService::WithRawCallbackMethod_WatchChanges<hotel::v1::ChangeService::CallbackService> {
 public:
  // executor: where a watcher's catch-up from its cursor reads the log (heartbeats come from the
  // hub's options).
  ChangeServiceImpl(ChangeRepository& repository, ChangeHub& hub, const api::Readiness& readiness,
                    api::CallExecutor& executor)
      : repository_(repository), hub_(hub), readiness_(readiness), executor_(executor) {}

  grpc::ServerUnaryReactor* ListChanges(grpc::CallbackServerContext*, const hotel::v1::ListChangesRequest* request,
                                        hotel::v1::ListChangesResponse* response) override;
  grpc::ServerWriteReactor<grpc::ByteBuffer>* WatchChanges(grpc::CallbackServerContext* context,
                                                           const grpc::ByteBuffer* request) override;

 private:
  ChangeRepository& repository_;  // on the request pool: the catch-up of a watcher from a cursor
  ChangeHub& hub_;
  const api::Readiness& readiness_;
  api::CallExecutor& executor_;
};

}  // namespace hotel::changes
