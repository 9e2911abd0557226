#include "changes/change_watch.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/client_identity.h"
#include "api/grpc_handover.h"
#include "api/handle_rpc.h"
#include "changes/change_sql.h"
#include "common/change_cursor.h"
#include "common/errors.h"

namespace hotel::changes {
namespace {

// Changes read from the log per page while a watcher catches up from its cursor. The next page
// is read only once the client has taken this one, so a watcher that stops reading holds at most
// one page (about 30 KB) besides gRPC's flow-control window.
constexpr int kCatchUpPage = 100;

}  // namespace

ChangeWatch* ChangeWatch::Start(grpc::CallbackServerContext* context, CallContext call,
                                absl::StatusOr<ChangeQuery> query, ChangeRepository& repository, ChangeSource& source,
                                api::CallRunner& calls) {
  auto* watch = new ChangeWatch(context, std::move(call), query.ok() ? *std::move(query) : ChangeQuery{}, repository,
                                source, calls);
  api::HandedToGrpc(watch);  // Begin may start a write, which gRPC completes on another thread
  watch->Begin(query.status());
  api::HandedToGrpc(watch);  // returned: gRPC may call OnCancel from here on
  return watch;
}

ChangeWatch::ChangeWatch(grpc::CallbackServerContext* context, CallContext call, ChangeQuery query,
                         ChangeRepository& repository, ChangeSource& source, api::CallRunner& calls)
    : context_(context),
      call_(std::move(call)),
      query_(std::move(query)),
      repository_(repository),
      source_(source),
      calls_(calls) {}

void ChangeWatch::Begin(const absl::Status& valid) {
  // Subscribe first: from here on the source queues every change after start(); the log supplies
  // what lies between the cursor and start(). Not under mu_: the source may notify from within
  // Subscribe, and Notified only records that news until begun_.
  absl::StatusOr<std::shared_ptr<ChangeSubscription>> subscription =
      valid.ok()
          ? source_.Subscribe(
                query_.filter, api::ClientKey(*context_), [this] { context_->TryCancel(); }, [this] { Notified(); })
          : valid;
  absl::MutexLock lock(&mu_);
  begun_ = true;
  if (!subscription.ok()) return End(subscription.status());
  subscription_ = *std::move(subscription);
  start_ = subscription_->start();
  cursor_ = query_.after.value_or(start_);
  if (cursor_ == start_) {
    phase_ = Phase::kLive;
    QueueHeartbeat();
  }
  Pump();  // the heartbeat, or the first catch-up page
}

void ChangeWatch::CatchUp() {
  ScopedCallContext in_call(&call_);
  int64_t from, start;
  bool ending;
  {
    absl::MutexLock lock(&mu_);
    from = cursor_;
    start = start_;
    ending = finish_.has_value();
  }
  // Read without the lock: the hub may notify meanwhile.
  absl::Status status;
  std::vector<std::pair<int64_t, std::string>> changes;  // serialized messages
  bool caught_up = true;
  if (ending) {
    // The call ends (cancelled while this page waited for a stream thread): nothing to read.
  } else if (from > start) {
    // Past this server's position: valid only if the log handed it out (another replica may be
    // ahead); a cursor from before a restore to an earlier point must not skip the new changes.
    auto page = repository_.Read(from, from, query_.filter, 0, hotel::v1::CHANGE_VIEW_BASIC);
    status = page.ok() ? CheckCursorKept(from, page->pruned_through, page->after_known) : page.status();
  } else {
    auto page = repository_.Read(from, start, query_.filter, kCatchUpPage, query_.view);
    status = page.ok() ? CheckCursorKept(from, page->pruned_through, page->after_known) : page.status();
    if (status.ok()) {
      caught_up = static_cast<int>(page->changes.size()) < kCatchUpPage;
      for (const auto& record : page->changes) {
        std::string bytes;
        if (status = SerializeWatchResponse(record, query_.view, &bytes); !status.ok()) break;
        changes.emplace_back(record.seq, std::move(bytes));
      }
    }
  }
  {
    absl::MutexLock lock(&mu_);
    reading_ = false;
    if (!status.ok()) {
      Ending(status);
    } else if (!finish_) {
      if (!sent_first_) QueueHeartbeat();
      for (auto& [seq, bytes] : changes) {
        Queue({nullptr, std::move(bytes)});
        cursor_ = seq;
      }
      if (caught_up) {
        cursor_ = std::max(cursor_, start_);
        phase_ = Phase::kLive;
        notified_ = true;  // whatever the hub queued meanwhile
      }
    }
    Pump();
  }
  Unref();
}

void ChangeWatch::Notified() {
  absl::MutexLock lock(&mu_);
  notified_ = true;
  if (begun_) Pump();
}

void ChangeWatch::OnWriteDone(bool ok) {
  api::BackFromGrpc(this);
  absl::MutexLock lock(&mu_);
  writing_ = false;
  if (!ok) Ending(absl::OkStatus());  // the client left
  Pump();
}

void ChangeWatch::OnCancel() {
  api::BackFromGrpc(this);
  absl::MutexLock lock(&mu_);
  Ending(absl::CancelledError("the client cancelled the watch"));
  Pump();
}

void ChangeWatch::OnDone() {
  api::BackFromGrpc(this);
  std::shared_ptr<ChangeSubscription> subscription;
  {
    absl::MutexLock lock(&mu_);
    subscription = subscription_;
  }
  if (subscription != nullptr) source_.Unsubscribe(subscription);  // no notification after this
  Unref();
}

void ChangeWatch::Unref() {
  bool last;
  {
    absl::MutexLock lock(&mu_);
    last = --refs_ == 0;
  }
  if (last) delete this;
}

void ChangeWatch::Pump() {
  if (finished_ || writing_) return;
  if (!finish_ && OutboxEmpty()) Refill();
  // Not while a catch-up page is read: that read runs under the call's context (its deadline,
  // whether its caller left), which gRPC frees right after OnDone; Finish leads to OnDone, so
  // the page's end finishes the call instead (docs/decisions.md, "A watch's call outlives its
  // catch-up read").
  if (finish_ && !reading_) {
    finished_ = true;
    api::HandedToGrpc(this);
    Finish(*finish_);
    return;
  }
  if (OutboxEmpty()) return;
  writing_message_ = std::move(outbox_[next_out_++]);
  if (OutboxEmpty()) ClearOutbox();
  writing_ = true;
  const std::string& bytes =
      writing_message_.shared == nullptr ? writing_message_.own : writing_message_.shared->views.of(query_.view);
  // Not copied: writing_message_ keeps the bytes until OnWriteDone.
  grpc::Slice slice(bytes.data(), bytes.size(), grpc::Slice::STATIC_SLICE);
  writing_buffer_ = grpc::ByteBuffer(&slice, 1);
  // No buffer hint, even with more waiting: the callback API completes a hinted write only once
  // something else flushes the stream, and the next write waits for this one.
  api::HandedToGrpc(this);
  StartWrite(&writing_buffer_);
}

void ChangeWatch::Refill() {
  if (phase_ == Phase::kCatchingUp) {
    if (reading_) return;
    reading_ = true;
    ++refs_;
    calls_.RunStreamWork([this] { CatchUp(); });
    return;
  }
  if (!notified_) return;
  notified_ = false;
  std::vector<SharedChange> changes;
  int64_t scanned = cursor_;
  bool heartbeat = false;
  absl::Status status = subscription_->Take(&changes, &scanned, &heartbeat);
  if (absl::IsResourceExhausted(status)) {
    status = ResourceExhaustedError("WATCHER_TOO_SLOW",
                                    absl::StrCat(status.message(), " (", EncodeChangeCursor(cursor_), ")"));
  }
  if (!status.ok()) return Ending(status);
  for (const auto& change : changes) {
    if (change->seq <= cursor_) continue;  // already sent from the log
    Queue({change, ""});
    cursor_ = change->seq;
  }
  if (OutboxEmpty() && heartbeat) {
    // A bookmark: nothing matched up to scanned, so resuming from it skips nothing.
    cursor_ = std::max(cursor_, scanned);
    QueueHeartbeat();
  }
}

void ChangeWatch::Ending(const absl::Status& status) {
  if (finish_ || finished_) return;
  ClearOutbox();
  finish_ = api::ToGrpcStatus(status);
}

void ChangeWatch::ClearOutbox() {
  std::vector<Message>().swap(outbox_);  // an idle watcher keeps no capacity
  next_out_ = 0;
}

void ChangeWatch::Queue(Message message) {
  outbox_.push_back(std::move(message));
  sent_first_ = true;
}

void ChangeWatch::QueueHeartbeat() {
  hotel::v1::WatchChangesResponse heartbeat;
  heartbeat.set_cursor(EncodeChangeCursor(cursor_));
  Queue({nullptr, heartbeat.SerializeAsString()});
}

}  // namespace hotel::changes
