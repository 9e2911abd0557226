// One WatchChanges call on gRPC's callback API: no thread of its own. It subscribes to the hub,
// catches up from the caller's cursor by pages read on the call executor, then writes what the
// hub queues for it as the hub notifies it. One write is in flight at a time (gRPC's flow
// control: a client that reads nothing holds back its own stream, and the hub cuts it off once
// its queue is full). A heartbeat (a bookmark cursor) goes out when nothing did for a heartbeat
// interval; the first message goes out at once, so clients know the watch is established.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "api/call_executor.h"
#include "changes/change_hub.h"
#include "changes/change_repository.h"
#include "changes/change_request.h"
#include "hotel/v1/changes.pb.h"

namespace hotel::changes {

// Raw bytes on the wire: a live change is written from the bytes the hub serialized once for
// every watcher (FannedOutChange), so a delivery copies nothing.
class ChangeWatch final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  // Starts the watch (or finishes it with the reason it cannot: query's status, the hub's
  // refusal); gRPC owns it from here and it deletes itself when done. executor: where catch-up
  // pages are read.
  static ChangeWatch* Start(grpc::CallbackServerContext* context, absl::StatusOr<ChangeQuery> query,
                            ChangeRepository& repository, ChangeHub& hub, api::CallExecutor& executor);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  enum class Phase { kCatchingUp, kLive };

  ChangeWatch(grpc::CallbackServerContext* context, ChangeQuery query, ChangeRepository& repository, ChangeHub& hub,
              api::CallExecutor& executor);
  void Begin(const absl::Status& valid);
  // Reads the next page of the log between the cursor and the hub's start (executor thread).
  void CatchUp();
  // The hub has news (changes, the end of the subscription, or a heartbeat due).
  void Notified();
  // Starts the next write when none is in flight (refilling the outbox first when it is empty),
  // or finishes the call once it is ending and no write is in flight.
  void Pump() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The outbox is empty: schedules the next catch-up page, or takes what the hub queued.
  void Refill() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The call ends with status (queued messages are dropped); Pump finishes it.
  void Ending(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void End(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Ending(status);
    Pump();
  }
  // One serialized hotel.v1.WatchChangesResponse: the hub's shared bytes, or its own.
  struct Message {
    SharedChange shared;
    std::string own;
  };
  void Queue(Message message) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void QueueHeartbeat() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Drops a reference (gRPC's, or a scheduled catch-up's); the last one deletes this.
  void Unref();

  grpc::CallbackServerContext* const context_;
  const ChangeQuery query_;
  ChangeRepository& repository_;  // on the request pool: the catch-up from a cursor
  ChangeHub& hub_;
  api::CallExecutor& executor_;
  std::shared_ptr<ChangeSubscription> subscription_;  // set before any notification can come
  int64_t start_ = 0;                                 // the hub's position when subscribed

  absl::Mutex mu_;
  int refs_ ABSL_GUARDED_BY(mu_) = 1;  // gRPC's until OnDone, plus one per scheduled catch-up
  Phase phase_ ABSL_GUARDED_BY(mu_) = Phase::kCatchingUp;
  int64_t cursor_ ABSL_GUARDED_BY(mu_) = 0;  // the newest position sent or about to be
  bool sent_first_ ABSL_GUARDED_BY(mu_) = false;
  bool reading_ ABSL_GUARDED_BY(mu_) = false;  // a catch-up page is being read
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool notified_ ABSL_GUARDED_BY(mu_) = false;               // news from the hub not taken yet
  std::optional<grpc::Status> finish_ ABSL_GUARDED_BY(mu_);  // ending: sent once no write is in flight
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<Message> outbox_ ABSL_GUARDED_BY(mu_);
  Message writing_message_ ABSL_GUARDED_BY(mu_);  // its bytes stay alive until the write is done
  grpc::ByteBuffer writing_buffer_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hotel::changes
