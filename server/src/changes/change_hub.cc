#include "changes/change_hub.h"

#include <malloc.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/change_cursor.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/tracing.h"

namespace hotel::changes {
namespace {

// Changes read per poll; a full batch is followed by another poll at once.
constexpr int kPollBatch = 1000;
// How often watchers are checked for heartbeats due and for stalled clients.
constexpr absl::Duration kWatcherCheckInterval = absl::Milliseconds(100);
// Watchers that must have left since the last trim before the hub returns freed memory.
constexpr int kWatchersLeftBeforeTrim = 100;

}  // namespace

absl::Status ChangeSubscription::Take(std::vector<SharedChange>* out, int64_t* scanned, bool* heartbeat) {
  absl::MutexLock lock(mu_);
  if (!ended_.ok()) return ended_;
  out->clear();
  out->swap(queue_);
  *scanned = scanned_;
  *heartbeat = heartbeat_due_;
  heartbeat_due_ = false;
  return absl::OkStatus();
}

ChangeHubOptions ChangeHubOptions::FromConfig(const Config& config) {
  ChangeHubOptions options;
  options.poll_interval = config.change_poll_interval;
  options.idle_poll_interval = config.change_poll_interval * 4;
  options.retention = config.change_retention;
  options.prune_interval = config.change_prune_interval;
  options.max_watchers = config.change_max_watchers;
  options.max_watchers_per_client = config.change_max_watchers_per_client;
  options.watcher_buffer = static_cast<size_t>(config.change_watcher_buffer);
  options.stalled_cancel_after = config.change_heartbeat_interval;
  options.heartbeat_interval = config.change_heartbeat_interval;
  return options;
}

void ChangeHub::Start() {
  thread_ = std::thread([this] { Loop(); });
}

absl::Status ChangeHub::StartFromHead() {
  if (auto first = PollOnce(); !first.ok()) return first.status();
  Start();
  return absl::OkStatus();
}

void ChangeHub::RegisterMetrics(MetricRegistry& metrics) const {
  metrics.AddGauge("hotel_server_change_watchers", "Change feed watch streams open on this server.",
                   [this] { return watchers(); });
  metrics.AddGauge("hotel_server_change_log_position",
                   "Sequence number of the newest change this server has read from the change log (0 before its "
                   "first poll); compare replicas and the log's head to see a lagging hub.",
                   [this] { return static_cast<double>(position().value_or(0)); });
  metrics.AddFamily("hotel_server_legacy_change_cursors_total",
                    "Change cursors of releases up to 1.3 (unsealed) read as positions; when it stays flat, no "
                    "consumer holds one any more.",
                    "counter", [] {
                      return MetricRegistry::Samples{{"", static_cast<double>(UnsealedChangeCursorsRead())}};
                    });
}

void ChangeHub::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
  }
  EndAll(UnavailableError("SHUTTING_DOWN", "the server is shutting down; resume after your last cursor"));
  if (!thread_.joinable()) return;
  if (!stop_.HasBeenNotified()) stop_.Notify();
  thread_.join();
}

std::optional<int64_t> ChangeHub::position() const {
  absl::MutexLock lock(&mu_);
  return position_;
}

int ChangeHub::watchers() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(live_.size() + ended_.size());
}

absl::StatusOr<std::shared_ptr<ChangeSubscription>> ChangeHub::Subscribe(ChangeFilter filter, std::string client,
                                                                         std::function<void()> cancel,
                                                                         std::function<void()> notify) {
  absl::MutexLock lock(&mu_);
  if (stopped_) return UnavailableError("SHUTTING_DOWN", "the server is shutting down; retry");
  if (!healthy_ || !position_) {
    return UnavailableError("CHANGE_FEED_UNAVAILABLE", "the change feed cannot read its log now; retry with backoff");
  }
  if (static_cast<int>(live_.size() + ended_.size()) >= options_.max_watchers) {
    return ResourceExhaustedError("WATCHER_LIMIT",
                                  absl::StrCat("this server already serves ", options_.max_watchers,
                                               " watchers (CHANGE_MAX_WATCHERS); retry later or on another replica"));
  }
  int& of_client = watchers_by_client_[client];
  if (of_client >= options_.max_watchers_per_client) {
    if (of_client == 0) watchers_by_client_.erase(client);
    return ResourceExhaustedError(
        "WATCHER_LIMIT", absl::StrCat("this client already holds ", options_.max_watchers_per_client,
                                      " watchers on this server (CHANGE_MAX_WATCHERS_PER_CLIENT); close some first"));
  }
  ++of_client;
  std::shared_ptr<ChangeSubscription> subscription(new ChangeSubscription(
      &mu_, std::move(filter), std::move(client), *position_, std::move(cancel), std::move(notify)));
  subscription->next_heartbeat_ = absl::Now() + options_.heartbeat_interval;
  live_.insert(subscription);
  return subscription;
}

void ChangeHub::Unsubscribe(const std::shared_ptr<ChangeSubscription>& subscription) {
  {
    absl::MutexLock lock(&mu_);
    live_.erase(subscription);
    ended_.erase(subscription);
    if (auto it = watchers_by_client_.find(subscription->client_);
        it != watchers_by_client_.end() && --it->second <= 0) {
      watchers_by_client_.erase(it);
    }
  }
  absl::MutexLock lock(&call_mu_);  // waits for a notify or cancel of it that is running
  subscription->subscribed_ = false;
}

void ChangeHub::CallEach(const Subscriptions& subscriptions, const std::function<void()> ChangeSubscription::*call) {
  absl::MutexLock lock(&call_mu_);
  for (const auto& subscription : subscriptions) {
    const std::function<void()>& function = (*subscription).*call;
    if (subscription->subscribed_ && function) function();
  }
}

void ChangeHub::EndAll(const absl::Status& status) {
  Subscriptions ended;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& subscription : live_) {
      subscription->ended_ = status;
      subscription->queue_.clear();
      ended.push_back(subscription);
    }
    live_.clear();
  }
  CallEach(ended, &ChangeSubscription::notify_);
}

absl::StatusOr<bool> ChangeHub::PollOnce() {
  auto sequenced = repository_.Sequence();
  if (!sequenced.ok()) return sequenced.status();
  std::optional<int64_t> from = position();
  if (from.has_value() && sequenced->moved == 0 && sequenced->head == *from) {
    // Nothing new in the log, none moved into it: an idle poll is this one statement.
    if (options_.polled) options_.polled(sequenced->head, sequenced->wal_position);
    Deliver({}, sequenced->head);
    return false;
  }
  // Before the first poll only the head is read: watchers start from now, history is paged.
  // Read for the view that needs the most (DIFF): every view is made from it.
  auto page = repository_.Read(from.value_or(std::numeric_limits<int64_t>::max()), std::numeric_limits<int64_t>::max(),
                               ChangeFilter{}, from ? kPollBatch : 0, hotel::v1::CHANGE_VIEW_DIFF);
  if (!page.ok()) return page.status();
  if (options_.polled) options_.polled(page->head, page->wal_position);
  const bool found = !page->changes.empty();
  const bool full = static_cast<int>(page->changes.size()) == kPollBatch;
  // A full batch may have left changes below the head unread.
  const int64_t head = full ? page->changes.back().seq : page->head;
  Deliver(std::move(page->changes), head);
  return found;
}

void ChangeHub::Deliver(std::vector<ChangeRecord> changes, int64_t head) {
  // A fan-out of new changes is a trace of its own, linked to the requests that made them.
  std::optional<Span> span;
  if (!changes.empty()) {
    span.emplace(Span::NewTrace{}, "change feed fan-out", SpanKind::kProducer);
    if (span->recording()) {
      span->SetAttribute("hotel.changes.count", static_cast<int64_t>(changes.size()));
      for (size_t i = 0; i < changes.size() && i < kMaxLinksPerSpan; ++i) {
        span->AddTraceLink(changes[i].trace_id, {{"hotel.change.seq", changes[i].seq}});
      }
    }
  }
  std::vector<SharedChange> shared;
  shared.reserve(changes.size());
  for (const auto& record : changes) {
    auto change = std::make_shared<FannedOutChange>();
    change->seq = record.seq;
    change->resource_type = record.resource_type;
    change->property_id = record.property_id;
    change->room_parts = RoomChangePartsOf(record.kind, record.changed_fields);
    if (auto s = SerializeWatchResponses(record, &change->views); !s.ok()) {
      LogWarning("change not converted", {{"seq", record.seq}, {"error", std::string(s.message())}});
    }
    shared.push_back(std::move(change));
  }
  Subscriptions notified;
  {
    absl::MutexLock lock(&mu_);
    healthy_ = true;
    if (position_ && head <= *position_ && shared.empty()) return;
    position_ = std::max(head, position_.value_or(head));
    Fan(shared, &notified);
  }
  if (span && span->recording())
    span->SetAttribute("hotel.changes.watchers_notified", static_cast<int64_t>(notified.size()));
  CallEach(notified, &ChangeSubscription::notify_);
}

void ChangeHub::Fan(const std::vector<SharedChange>& shared, Subscriptions* notified) {
  const absl::Time now = absl::Now();
  for (auto it = live_.begin(); it != live_.end();) {
    const auto& subscription = *it;
    bool added = false;
    for (const auto& change : shared) {
      if (change->seq <= subscription->start_ ||
          !subscription->filter_.Matches(change->resource_type, change->property_id, change->room_parts)) {
        continue;
      }
      subscription->queue_.push_back(change);
      added = true;
    }
    subscription->scanned_ = std::max(subscription->scanned_, *position_);
    if (subscription->queue_.size() > options_.watcher_buffer) {
      // Cut off: its memory is freed now; its watcher reports the status when it next takes.
      std::vector<SharedChange>().swap(subscription->queue_);
      subscription->ended_ = ResourceExhaustedError(
          "WATCHER_TOO_SLOW", absl::StrCat("the watcher fell more than ", options_.watcher_buffer,
                                           " changes behind; resume after the last cursor it received"));
      subscription->cut_off_at_ = now;
      notified->push_back(subscription);
      ended_.insert(subscription);
      live_.erase(it++);
      continue;
    }
    if (added) {
      subscription->next_heartbeat_ = now + options_.heartbeat_interval;
      notified->push_back(subscription);
    }
    ++it;
  }
}

void ChangeHub::CancelStalled() {
  Subscriptions stalled;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = absl::Now();
    for (auto it = ended_.begin(); it != ended_.end();) {
      if (now - (*it)->cut_off_at_ >= options_.stalled_cancel_after) {
        // Its stream is stuck writing to a client that reads nothing: cancel the call.
        stalled.push_back(*it);
        ended_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  CallEach(stalled, &ChangeSubscription::cancel_);
}

void ChangeHub::ReturnMemoryOfLeftWatchers() {
  const int now = watchers();
  if (now + kWatchersLeftBeforeTrim <= peak_watchers_) {
    // glibc keeps freed memory in its arenas; a thousand watchers gone leave hundreds of MB there.
    malloc_trim(0);
    peak_watchers_ = now;
  }
  peak_watchers_ = std::max(peak_watchers_, now);
}

void ChangeHub::DueHeartbeats() {
  Subscriptions due;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = absl::Now();
    for (const auto& subscription : live_) {
      if (subscription->next_heartbeat_ > now) continue;
      subscription->heartbeat_due_ = true;
      subscription->next_heartbeat_ = now + options_.heartbeat_interval;
      due.push_back(subscription);
    }
  }
  CallEach(due, &ChangeSubscription::notify_);
}

void ChangeHub::Loop() {
  absl::Duration interval = options_.poll_interval;
  absl::Time next_prune = absl::Now();
  absl::Time next_watcher_check = absl::Now();
  bool failing = false;
  bool was_ready = false;
  while (!stop_.WaitForNotificationWithTimeout(interval)) {
    if (ready_ && !ready_()) {
      // The health check found the database gone before a poll did: the watchers would wait for
      // changes that cannot come, so they are ended as after a failed poll, once.
      if (was_ready) {
        EndAll(UnavailableError("CHANGE_FEED_UNAVAILABLE",
                                "the change feed lost its database; resume after your last cursor with backoff"));
      }
      was_ready = false;
      interval = options_.idle_poll_interval;
      continue;
    }
    was_ready = true;
    auto found = PollOnce();
    if (!found.ok()) {
      if (!failing) LogWarning("change feed poll failed", {{"error", std::string(found.status().message())}});
      failing = true;
      {
        absl::MutexLock lock(&mu_);
        healthy_ = false;
      }
      EndAll(UnavailableError("CHANGE_FEED_UNAVAILABLE",
                              "the change feed lost its database; resume after your last cursor with backoff"));
      interval = options_.idle_poll_interval;
      continue;
    }
    failing = false;
    if (absl::Now() >= next_watcher_check) {
      next_watcher_check = absl::Now() + kWatcherCheckInterval;
      DueHeartbeats();
      CancelStalled();
      ReturnMemoryOfLeftWatchers();
    }
    // Busy: poll again soon; idle: back off step by step to the idle interval.
    interval = *found ? options_.poll_interval : std::min(interval * 2, options_.idle_poll_interval);
    if (absl::Now() >= next_prune) {
      next_prune = absl::Now() + options_.prune_interval;
      auto pruned = repository_.Prune(options_.retention, options_.prune_batch);
      if (!pruned.ok()) {
        LogWarning("change log prune failed", {{"error", std::string(pruned.status().message())}});
      } else if (*pruned == options_.prune_batch) {
        next_prune = absl::Now();  // more to prune: next round
      }
    }
  }
}

}  // namespace hotel::changes
