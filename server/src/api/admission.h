// Admission control, the one place that decides whether, when and on which thread work runs: an
// adaptive number of calls run at once (api/adaptive_limit.h, between a floor and a ceiling); the
// others wait for a slot, and a call that cannot be served in time is refused at arrival, not after
// waiting (UNAVAILABLE OVERLOADED, which the gateway answers as 503 with Retry-After). "In time" is
// the call's expected wait (the calls ahead of it times the smoothed time a call holds a slot, over
// the slots) plus its own expected hold, against its deadline and, while the queue stands (CoDel:
// it did not drain for a whole interval), against the longest wait max_wait, whether or not the
// caller sent a deadline; a burst queues (docs/deadlines-and-retries.md). It owns the threads admitted calls run on
// (one per slot and per place in the queue, which bounds the memory waiting calls hold: a waiting call holds a thread,
// never a gRPC poller), and the exemptions: probes and the background work of streams run on
// threads of their own, never behind admitted calls and never refused.
#pragma once

#include <array>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "api/adaptive_limit.h"
#include "api/call_executor.h"
#include "common/config.h"

namespace hotel::api {

struct AdmissionOptions {
  int limit = 8;   // calls running at once: the ceiling of the adaptive limit
  int queue = 32;  // calls that may wait for a slot (a memory bound: each holds a thread)
  // The longest a call waits for a slot, whatever its deadline (uploads, which hold their bytes
  // while they wait); calls wait as long as their deadline allows.
  absl::Duration queue_timeout = absl::InfiniteDuration();
  int probe_threads = 1;   // liveness, readiness and health: exempt, never queued behind calls
  int stream_threads = 2;  // a change watcher's catch-up pages: exempt, bounded by the watcher caps
  int min_limit = -1;      // the floor of the adaptive limit (-1: the ceiling, a fixed limit)
  // While the queue stands (its shortest wait above queue_target for a whole queue_interval), no
  // call waits longer than max_wait: one that would is refused at arrival.
  absl::Duration max_wait = absl::InfiniteDuration();
  absl::Duration queue_target = absl::Milliseconds(5);
  absl::Duration queue_interval = absl::Milliseconds(100);

  // The calls' admission: MAX_IN_FLIGHT (0: twice the pool, so a call waits for admission
  // rather than for a connection), MIN_IN_FLIGHT (0: half the pool), ADMISSION_QUEUE (-1: four
  // times the limit) and ADMISSION_MAX_WAIT.
  static AdmissionOptions FromConfig(const Config& config);
};

inline constexpr std::array<double, 8> kQueueWaitBuckets = {.0001, .0005, .001, .002, .005, .01, .02, .05};

struct AdmissionStats {
  int limit = 0;  // current limit
  int in_flight = 0;
  int queued = 0;
  int64_t admitted_total = 0;
  int64_t shed_queue_full_total = 0;     // refused at once: no room to wait
  int64_t shed_budget_total = 0;         // refused at once: its expected wait and hold pass its deadline
  int64_t shed_queue_timeout_total = 0;  // waited as long as its deadline (or queue_timeout) allowed without a slot
  int64_t deadline_in_queue_total = 0;   // the caller's deadline passed while waiting
  std::array<int64_t, kQueueWaitBuckets.size()> queue_wait_buckets{};  // non-cumulative
  int64_t queue_wait_count = 0;
  double queue_wait_seconds_total = 0;
};

// The latest a call may start and still end by its deadline, or InfinitePast when it cannot:
// `ahead` calls wait before it, each slot frees every `hold` (smoothed) on average, and it then
// holds a slot for `hold` itself. Pure, unit-tested.
absl::Time LatestStart(absl::Time now, absl::Time deadline, int ahead, int limit, absl::Duration hold);

class AdmissionControl {
 public:
  // A slot held for one call; released (and its latency recorded) when destroyed.
  class Ticket {
   public:
    Ticket() = default;
    Ticket(Ticket&& other) noexcept : owner_(other.owner_), admitted_at_(other.admitted_at_) { other.owner_ = nullptr; }
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket();

   private:
    friend class AdmissionControl;
    Ticket(AdmissionControl* owner, absl::Time admitted_at) : owner_(owner), admitted_at_(admitted_at) {}
    AdmissionControl* owner_ = nullptr;
    absl::Time admitted_at_;
  };

  // Called once: with OK on a call thread while the call holds its slot (released when it
  // returns), or with the refusal (on the submitter's thread when the queue is full).
  using Task = absl::AnyInvocable<void(absl::Status admitted) &&>;

  explicit AdmissionControl(AdmissionOptions options);
  ~AdmissionControl();  // runs what was submitted, then joins its threads

  // Admits task or refuses it: UNAVAILABLE OVERLOADED at once when every slot and every place in
  // the queue is taken or its deadline cannot be met, or once it has waited as long as its
  // deadline (or queue_timeout) allows; DEADLINE_EXCEEDED when deadline passes while it waits.
  void Submit(absl::Time deadline, Task task);
  // Exempt from admission (never refused, never behind admitted calls): probes, which must
  // answer whatever the load; the catch-up reads of change watchers.
  void RunProbe(absl::AnyInvocable<void() &&> task) { probes_.Schedule(std::move(task)); }
  void RunStreamWork(absl::AnyInvocable<void() &&> task) { streams_.Schedule(std::move(task)); }

  // A slot, waiting while the deadline can still be met (and at most queue_timeout) for one.
  // UNAVAILABLE with reason OVERLOADED when refused, DEADLINE_EXCEEDED when the deadline passed
  // while waiting.
  absl::StatusOr<Ticket> Admit(absl::Time deadline);

  static absl::Status Overloaded();

  AdmissionStats Stats() const;
  const AdmissionOptions& options() const { return options_; }

 private:
  void Release(absl::Duration latency);

  const AdmissionOptions options_;
  mutable absl::Mutex mu_;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  int queued_ ABSL_GUARDED_BY(mu_) = 0;
  AdmissionStats counters_ ABSL_GUARDED_BY(mu_);
  AdaptiveLimit limit_ ABSL_GUARDED_BY(mu_);
  StandingQueue standing_ ABSL_GUARDED_BY(mu_);
  // Last: their threads stop (running what is left) before the state above goes.
  CallExecutor calls_;  // limit + queue threads: each admitted or waiting call holds one
  CallExecutor probes_;
  CallExecutor streams_;
};

}  // namespace hotel::api
