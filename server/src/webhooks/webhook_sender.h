// The webhook sender: threads that lease due subscriptions (one sender per subscription at a time,
// across replicas, webhook_repository's Claim) and deliver their next batch: frozen at its first
// attempt, signed, POSTed, and recorded with the cursor's advance (2xx) or the next retry.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/config.h"
#include "common/metric_registry.h"
#include "common/tracing.h"
#include "webhooks/webhook_http.h"
#include "webhooks/webhook_message.h"
#include "webhooks/webhook_repository.h"

namespace hotel::webhooks {

struct SenderOptions {
  int threads = 4;
  absl::Duration lease = absl::Seconds(10);
  absl::Duration poll_interval = absl::Milliseconds(20);
  HttpOptions http;
  RetryPolicy retry;
  std::string owner;                                 // this replica's name in leases
  absl::Duration stats_interval = absl::Seconds(5);  // how often Stats() is refreshed

  // WEBHOOK_*; owner is this host and process, so a lease names who holds it.
  static SenderOptions FromConfig(const Config& config);
};

// What one attempt came to, for metrics.
enum class AttemptResult { kDelivered, kFailed, kDisabled, kFenced };

class WebhookSender {
 public:
  WebhookSender(WebhookRepository& repository, SenderOptions options, std::function<bool()> may_run,
                std::function<void(AttemptResult, const HttpResult&)> on_attempt = nullptr);
  ~WebhookSender();
  void Start();
  void Stop();
  // One round of one thread: leases a due subscription and delivers (or skips) once. True when it
  // found one. Exposed for tests.
  absl::StatusOr<bool> DeliverOnce(const std::string& owner);
  // Every subscription's state and lag as last read (every stats_interval; also with no threads).
  std::vector<WebhookStat> Stats() const;
  // Attempts by result, subscriptions by state, and each active subscription's lag.
  void RegisterMetrics(MetricRegistry& metrics) const;

 private:
  void Run(int index);
  // An idle thread's wait before it looks again: about threads × poll_interval (jittered), so idle
  // threads take turns and together look about every poll_interval, one statement each time, not
  // threads times as often; cut short by WakeOne or Stop.
  void Idle();
  // Wakes one idle thread: work was found, so more may be due.
  void WakeOne();
  bool Woken() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(idle_mu_) { return wakeups_ > 0 || stop_.HasBeenNotified(); }
  void RefreshStats();
  absl::Status Deliver(Lease& lease, Span& span);

  WebhookRepository& repository_;
  const SenderOptions options_;
  std::function<bool()> may_run_;
  std::function<void(AttemptResult, const HttpResult&)> on_attempt_;
  std::atomic<int64_t> attempts_[4] = {0, 0, 0, 0};  // by AttemptResult
  absl::Notification stop_;
  absl::Mutex idle_mu_;
  int wakeups_ ABSL_GUARDED_BY(idle_mu_) = 0;  // wake-ups not yet taken by an idle thread
  std::vector<std::thread> threads_;
  mutable absl::Mutex stats_mu_;
  std::vector<WebhookStat> stats_ ABSL_GUARDED_BY(stats_mu_);
};

}  // namespace hotel::webhooks
