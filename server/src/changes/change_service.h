// gRPC handlers of hotel.v1.ChangeService. A watcher holds no thread: each WatchChanges call is
// a ChangeWatch reactor that the hub notifies (changes/change_watch.h).
#pragma once

#include "api/call_runner.h"
#include "changes/change_hub.h"
#include "changes/change_repository.h"
#include "hotel/v1/changes.grpc.pb.h"

namespace hotel::changes {

// WatchChanges is a raw method (bytes in and out): its messages are serialized once by the hub.
class ChangeServiceImpl final
    : public hotel::v1::ChangeService::WithRawCallbackMethod_WatchChanges<hotel::v1::ChangeService::CallbackService> {
 public:
  // source: what watchers subscribe to (the hub); calls: where a watcher's catch-up from its
  // cursor reads the log (heartbeats come from the hub's options).
  ChangeServiceImpl(ChangeRepository& repository, ChangeSource& source, api::CallRunner& calls)
      : repository_(repository), source_(source), calls_(calls) {}

  grpc::ServerUnaryReactor* ListChanges(grpc::CallbackServerContext*, const hotel::v1::ListChangesRequest* request,
                                        hotel::v1::ListChangesResponse* response) override;
  grpc::ServerWriteReactor<grpc::ByteBuffer>* WatchChanges(grpc::CallbackServerContext* context,
                                                           const grpc::ByteBuffer* request) override;

 private:
  ChangeRepository& repository_;  // on the request pool: the catch-up of a watcher from a cursor
  ChangeSource& source_;
  api::CallRunner& calls_;
};

}  // namespace hotel::changes
