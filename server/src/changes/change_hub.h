// One poller per process for the change feed (docs/changes.md). A background thread runs the
// sequencer (staged changes into the log; one server at a time does real work), reads the log
// after the newest position it has seen, and fans each change out to the watchers whose filter
// it matches. Watchers never hold a database connection or a thread: each has a bounded queue
// here and is notified when it has something to take (changes, its end, or a heartbeat due);
// one that falls further behind than its bound is ended (RESOURCE_EXHAUSTED) rather than
// buffered without limit. The hub also prunes the log past its retention.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "changes/change_repository.h"
#include "changes/change_request.h"
#include "common/config.h"
#include "common/metric_registry.h"

namespace hotel::changes {

struct ChangeHubOptions {
  absl::Duration poll_interval = absl::Milliseconds(5);        // while changes keep coming
  absl::Duration idle_poll_interval = absl::Milliseconds(20);  // the most it backs off to
  absl::Duration retention = absl::Hours(24 * 7);
  absl::Duration prune_interval = absl::Minutes(1);
  int prune_batch = 10000;
  int max_watchers = 1000;
  // Watchers of one client (api/client_identity.h): no client can take every watcher.
  int max_watchers_per_client = 1000;
  size_t watcher_buffer = 1000;  // changes queued per watcher before it is cut off
  // A watcher cut off while its connection stays blocked (the client reads nothing) has its
  // call cancelled after this long (the server passes its heartbeat interval), so its stream is
  // released; a client that reads again before then gets the RESOURCE_EXHAUSTED status.
  absl::Duration stalled_cancel_after = absl::Seconds(15);
  // A watcher that got nothing for this long is told a heartbeat is due.
  absl::Duration heartbeat_interval = absl::Seconds(15);
  // Told of every successful poll before its position is published: the log's head and a WAL
  // position at or past every change up to it (the read replicas' samples, db/read_replicas.h).
  std::function<void(int64_t head, uint64_t wal_position)> polled;

  // CHANGE_*: the poll backs off to four times its interval when idle, and a stalled watcher is
  // cancelled after one heartbeat interval (its client has missed a heartbeat by then).
  static ChangeHubOptions FromConfig(const Config& config);
};

// A change as the hub fans it out: converted to the stream's message and serialized once (in
// every view), then shared read-only by every watcher it matches, which writes those bytes as they
// are (copying a full view's resource for each watcher was most of a delivery's cost).
struct FannedOutChange {
  int64_t seq = 0;
  std::string resource_type;
  std::string property_id;
  RoomChangeParts room_parts;  // of a ROOM change, for the watchers' room_changes
  WatchResponseViews views;    // serialized hotel.v1.WatchChangesResponse, one per view
};
using SharedChange = std::shared_ptr<const FannedOutChange>;

// One watcher's view of the hub. The hub calls notify (never under its lock, never after the
// watcher unsubscribed) when Take has something new; the watcher then takes it.
class ChangeSubscription {
 public:
  // The hub's position when the watcher subscribed: every later change will be queued.
  int64_t start() const { return start_; }
  // Without waiting: the changes queued since the last Take (maybe none), in scanned the newest
  // position the hub has looked at for this watcher, in heartbeat whether one is due (nothing
  // was taken for a heartbeat interval); non-OK once the subscription ended (too slow: cut off;
  // the hub lost its database or is stopping).
  absl::Status Take(std::vector<SharedChange>* out, int64_t* scanned, bool* heartbeat);

 private:
  friend class ChangeHub;
  ChangeSubscription(absl::Mutex* mu, ChangeFilter filter, std::string client, int64_t start,
                     std::function<void()> cancel, std::function<void()> notify)
      : mu_(mu),
        filter_(std::move(filter)),
        client_(std::move(client)),
        start_(start),
        scanned_(start),
        cancel_(std::move(cancel)),
        notify_(std::move(notify)) {}

  absl::Mutex* const mu_;  // the hub's
  const ChangeFilter filter_;
  const std::string client_;  // who watches, for the per-client limit
  const int64_t start_;
  std::vector<SharedChange> queue_ ABSL_GUARDED_BY(mu_);  // not a deque: most watchers are idle
  int64_t scanned_ ABSL_GUARDED_BY(mu_);
  absl::Status ended_ ABSL_GUARDED_BY(mu_);
  absl::Time cut_off_at_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  absl::Time next_heartbeat_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();  // set by the hub
  bool heartbeat_due_ ABSL_GUARDED_BY(mu_) = false;
  bool subscribed_ = true;              // guarded by the hub's call_mu_
  const std::function<void()> cancel_;  // cancels the watcher's call
  const std::function<void()> notify_;  // tells the watcher to Take
};

// What a watcher subscribes to: the hub (or, in a test, something that stands in for it).
class ChangeSource {
 public:
  virtual ~ChangeSource() = default;
  // RESOURCE_EXHAUSTED WATCHER_LIMIT beyond the watcher limit, of the server or of client (who
  // asks: api/client_identity.h); UNAVAILABLE while the log cannot be read. cancel and notify are called outside the
  // source's own locks and must not block: cancel for a watcher cut off that stays stalled, notify when Take has news.
  // notify may come at any time from the moment Subscribe is called, even before it returns.
  virtual absl::StatusOr<std::shared_ptr<ChangeSubscription>> Subscribe(ChangeFilter filter, std::string client,
                                                                        std::function<void()> cancel,
                                                                        std::function<void()> notify) = 0;
  // After it returns, neither function of the subscription is called again. Not from within them.
  virtual void Unsubscribe(const std::shared_ptr<ChangeSubscription>& subscription) = 0;
};

class ChangeHub final : public ChangeSource {
 public:
  // repository runs on a pool of its own (one connection), so polling never waits for requests.
  ChangeHub(ChangeRepository& repository, ChangeHubOptions options, std::function<bool()> ready = nullptr)
      : repository_(repository), options_(options), ready_(std::move(ready)) {}
  ~ChangeHub() { Stop(); }
  ChangeHub(const ChangeHub&) = delete;
  ChangeHub& operator=(const ChangeHub&) = delete;

  void Start();
  // Reads the log's head on the caller's thread, then starts: position() is known when it returns
  // OK, so everything started after it (the server's port) can rely on it.
  absl::Status StartFromHead();
  // Ends every subscription with UNAVAILABLE, then stops the thread.
  void Stop();

  // The newest log position seen; everything up to it had committed when it was read. nullopt
  // until the first successful poll.
  std::optional<int64_t> position() const;

  // ChangeSource: the hub calls cancel and notify from its thread (or Stop's).
  absl::StatusOr<std::shared_ptr<ChangeSubscription>> Subscribe(ChangeFilter filter, std::string client,
                                                                std::function<void()> cancel,
                                                                std::function<void()> notify) override;
  void Unsubscribe(const std::shared_ptr<ChangeSubscription>& subscription) override;
  int watchers() const;
  // The watchers open and the newest log position read.
  void RegisterMetrics(MetricRegistry& metrics) const;

  // One sequencer run and one read of the log; true when it found changes. Exposed for tests.
  absl::StatusOr<bool> PollOnce();

 private:
  using Subscriptions = std::vector<std::shared_ptr<ChangeSubscription>>;
  void Loop();
  void Deliver(std::vector<ChangeRecord> changes, int64_t head);
  // Queues shared changes for the live watchers they match; those with news go to notified.
  void Fan(const std::vector<SharedChange>& shared, Subscriptions* notified) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EndAll(const absl::Status& status);
  void CancelStalled();
  void ReturnMemoryOfLeftWatchers();
  void DueHeartbeats();
  // Calls notify_ or cancel_ of each still subscribed, outside mu_.
  void CallEach(const Subscriptions& subscriptions, const std::function<void()> ChangeSubscription::*call);

  ChangeRepository& repository_;
  const ChangeHubOptions options_;
  const std::function<bool()> ready_;
  absl::Notification stop_;
  std::thread thread_;
  int peak_watchers_ = 0;  // since the last trim; the hub's thread only

  mutable absl::Mutex mu_;
  std::optional<int64_t> position_ ABSL_GUARDED_BY(mu_);
  bool healthy_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_set<std::shared_ptr<ChangeSubscription>> live_ ABSL_GUARDED_BY(mu_);
  // Cut off for being too slow, kept until their watcher picks up the verdict.
  absl::flat_hash_set<std::shared_ptr<ChangeSubscription>> ended_ ABSL_GUARDED_BY(mu_);
  // Subscribed and not yet unsubscribed, by client.
  absl::flat_hash_map<std::string, int> watchers_by_client_ ABSL_GUARDED_BY(mu_);
  // Held while a subscription's notify or cancel runs, and by Unsubscribe; never with mu_.
  absl::Mutex call_mu_;
};

}  // namespace hotel::changes
