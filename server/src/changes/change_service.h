// gRPC handlers of hotel.v1.ChangeService. WatchChanges runs on the synchronous API like every
// other call (a callback method would make gRPC 1.51 build a "hybrid" server that stalls, see
// docs/decisions.md): one gRPC thread per watcher, blocked on its subscription with a timeout
// that produces the heartbeats.
#pragma once

#include "absl/time/time.h"
#include "api/handle_rpc.h"
#include "changes/change_hub.h"
#include "changes/change_repository.h"
#include "hotel/v1/changes.grpc.pb.h"

namespace hotel::changes {

class ChangeServiceImpl final : public hotel::v1::ChangeService::Service {
 public:
  ChangeServiceImpl(ChangeRepository& repository, ChangeHub& hub, const api::Readiness& readiness,
                    absl::Duration heartbeat_interval)
      : repository_(repository), hub_(hub), readiness_(readiness), heartbeat_interval_(heartbeat_interval) {}

  grpc::Status ListChanges(grpc::ServerContext*, const hotel::v1::ListChangesRequest* request,
                           hotel::v1::ListChangesResponse* response) override;
  grpc::Status WatchChanges(grpc::ServerContext* context, const hotel::v1::WatchChangesRequest* request,
                            grpc::ServerWriter<hotel::v1::WatchChangesResponse>* writer) override;

 private:
  absl::Status Watch(grpc::ServerContext* context, const ChangeQuery& query,
                     grpc::ServerWriter<hotel::v1::WatchChangesResponse>* writer);

  ChangeRepository& repository_;  // on the request pool: the catch-up of a watcher from a cursor
  ChangeHub& hub_;
  const api::Readiness& readiness_;
  const absl::Duration heartbeat_interval_;
};

}  // namespace hotel::changes
