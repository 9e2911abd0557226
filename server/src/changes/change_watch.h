// One WatchChanges call on gRPC's callback API: no thread of its own. It subscribes to the hub,
// catches up from the caller's cursor by pages read on a stream thread, then writes what the
// hub queues for it as the hub notifies it. One write is in flight at a time (gRPC's flow
// control: a client that reads nothing holds back its own stream, and the hub cuts it off once
// its queue is full). A heartbeat (a bookmark cursor) goes out when nothing did for a heartbeat
// interval; the first message goes out at once, so clients know the watch is established.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "api/call_runner.h"
#include "changes/change_hub.h"
#include "changes/change_repository.h"
#include "changes/change_request.h"
#include "hotel/v1/changes.pb.h"

namespace hotel::changes {

// Raw bytes on the wire: a live change is written from the bytes the hub serialized once for
// every watcher (FannedOutChange), so a delivery copies nothing.
class ChangeWatch final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  // Starts the watch (or finishes it with the reason it cannot: query's status, the source's
  // refusal); gRPC owns it from here and it deletes itself when done. call: the call's context,
  // under which calls reads the catch-up pages (RunStreamWork).
  static ChangeWatch* Start(grpc::CallbackServerContext* context, CallContext call, absl::StatusOr<ChangeQuery> query,
                            ChangeRepository& repository, ChangeSource& source, api::CallRunner& calls);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  enum class Phase { kCatchingUp, kLive };

  ChangeWatch(grpc::CallbackServerContext* context, CallContext call, ChangeQuery query, ChangeRepository& repository,
              ChangeSource& source, api::CallRunner& calls);
  void Begin(const absl::Status& valid);
  // Reads the next page of the log between the cursor and the hub's start (a stream thread).
  void CatchUp();
  // The hub has news (changes, the end of the subscription, or a heartbeat due).
  void Notified();
  // Starts the next write when none is in flight (refilling the outbox first when it is empty),
  // or finishes the call once it is ending and neither a write nor a catch-up read is in flight.
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
  bool OutboxEmpty() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return next_out_ == outbox_.size(); }
  void ClearOutbox() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void QueueHeartbeat() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Drops a reference (gRPC's, or a scheduled catch-up's); the last one deletes this.
  void Unref();

  grpc::CallbackServerContext* const context_;
  const CallContext call_;  // its span and the caller's deadline, for the catch-up reads
  const ChangeQuery query_;
  ChangeRepository& repository_;  // on the request pool: the catch-up from a cursor
  ChangeSource& source_;
  api::CallRunner& calls_;

  absl::Mutex mu_;
  // Set once Begin has them; news that comes before (the source may notify from within
  // Subscribe) is only recorded in notified_, and Begin pumps it.
  bool begun_ ABSL_GUARDED_BY(mu_) = false;
  std::shared_ptr<ChangeSubscription> subscription_ ABSL_GUARDED_BY(mu_);
  int64_t start_ ABSL_GUARDED_BY(mu_) = 0;  // the source's position when subscribed
  int refs_ ABSL_GUARDED_BY(mu_) = 1;       // gRPC's until OnDone, plus one per scheduled catch-up
  Phase phase_ ABSL_GUARDED_BY(mu_) = Phase::kCatchingUp;
  int64_t cursor_ ABSL_GUARDED_BY(mu_) = 0;  // the newest position sent or about to be
  bool sent_first_ ABSL_GUARDED_BY(mu_) = false;
  bool reading_ ABSL_GUARDED_BY(mu_) = false;  // a catch-up page is being read
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool notified_ ABSL_GUARDED_BY(mu_) = false;               // news from the hub not taken yet
  std::optional<grpc::Status> finish_ ABSL_GUARDED_BY(mu_);  // ending: sent once no write is in flight
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  // What waits to be written, from next_out_ on. Not a deque: libstdc++'s allocates 576 bytes
  // even empty, and most watchers are idle.
  std::vector<Message> outbox_ ABSL_GUARDED_BY(mu_);
  size_t next_out_ ABSL_GUARDED_BY(mu_) = 0;
  Message writing_message_ ABSL_GUARDED_BY(mu_);  // its bytes stay alive until the write is done
  grpc::ByteBuffer writing_buffer_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hotel::changes
