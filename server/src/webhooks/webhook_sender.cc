#include "webhooks/webhook_sender.h"

#include <unistd.h>

#include <algorithm>
#include <map>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/errors.h"
#include "common/log.h"

namespace hotel::webhooks {

SenderOptions SenderOptions::FromConfig(const Config& config) {
  char host_name[256] = {0};
  gethostname(host_name, sizeof(host_name) - 1);
  SenderOptions options;
  options.threads = config.webhook_senders;
  options.lease = config.webhook_lease;
  options.poll_interval = config.webhook_poll_interval;
  options.http = {config.webhook_connect_timeout, config.webhook_timeout};
  options.retry.scale = config.webhook_retry_scale;
  options.owner = absl::StrCat(host_name, ":", getpid());
  return options;
}

void WebhookSender::RegisterMetrics(MetricRegistry& metrics) const {
  metrics.AddFamily("hotel_server_webhook_attempts_total",
                    "Webhook delivery attempts by this replica, by result: delivered (2xx), failed (to be retried), "
                    "disabled (410 or the schedule exhausted), fenced (the lease was taken over meanwhile).",
                    "counter", [this] {
                      MetricRegistry::Samples samples;
                      const char* names[] = {"delivered", "failed", "disabled", "fenced"};
                      for (int i = 0; i < 4; ++i) {
                        samples.emplace_back(absl::StrCat("result=\"", names[i], "\""),
                                             static_cast<double>(attempts_[i].load(std::memory_order_relaxed)));
                      }
                      return samples;
                    });
  metrics.AddFamily("hotel_server_webhooks", "Webhook subscriptions by state (as of the last refresh, every 5 s).",
                    "gauge", [this] {
                      std::map<std::string, double> by_state = {{"ACTIVE", 0}, {"PAUSED", 0}, {"DISABLED", 0}};
                      for (const auto& stat : Stats()) by_state[stat.state] += 1;
                      MetricRegistry::Samples samples;
                      for (const auto& [state, count] : by_state) {
                        samples.emplace_back(absl::StrCat("state=\"", LabelValue(state), "\""), count);
                      }
                      return samples;
                    });
  metrics.AddFamily("hotel_server_webhook_lag_seconds",
                    "Age of the oldest change an active webhook subscription has not had delivered yet (0: caught "
                    "up), per subscription.",
                    "gauge", [this] {
                      MetricRegistry::Samples samples;
                      for (const auto& stat : Stats()) {
                        if (stat.state != "ACTIVE") continue;
                        samples.emplace_back(absl::StrCat("webhook=\"", LabelValue(stat.id), "\""), stat.lag_seconds);
                      }
                      return samples;
                    });
}

WebhookSender::WebhookSender(WebhookRepository& repository, SenderOptions options, std::function<bool()> may_run,
                             std::function<void(AttemptResult, const HttpResult&)> on_attempt)
    : repository_(repository),
      options_(std::move(options)),
      may_run_(std::move(may_run)),
      on_attempt_(std::move(on_attempt)) {}

WebhookSender::~WebhookSender() { Stop(); }

void WebhookSender::Start() {
  for (int i = 0; i < options_.threads; ++i) threads_.emplace_back([this, i] { Run(i); });
  threads_.emplace_back([this] {
    while (!stop_.WaitForNotificationWithTimeout(options_.stats_interval)) {
      if (may_run_()) RefreshStats();
    }
  });
}

void WebhookSender::RefreshStats() {
  auto stats = repository_.Stats();
  if (!stats.ok()) return;  // the database is away: keep the last figures
  absl::MutexLock lock(&stats_mu_);
  stats_ = *std::move(stats);
}

std::vector<WebhookStat> WebhookSender::Stats() const {
  absl::MutexLock lock(&stats_mu_);
  return stats_;
}

void WebhookSender::Stop() {
  if (!stop_.HasBeenNotified()) stop_.Notify();
  // Idle threads wait on idle_mu_'s condition (Woken, which reads stop_): releasing the mutex has
  // it evaluated again, so they see the stop now rather than at the end of their turn.
  { absl::MutexLock lock(&idle_mu_); }
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

void WebhookSender::Idle() {
  static thread_local absl::BitGen jitter;
  const absl::Duration turn = options_.poll_interval * std::max(1, options_.threads);
  absl::MutexLock lock(&idle_mu_);
  idle_mu_.AwaitWithTimeout(absl::Condition(this, &WebhookSender::Woken), turn * absl::Uniform(jitter, 0.5, 1.5));
  if (wakeups_ > 0) --wakeups_;
}

void WebhookSender::WakeOne() {
  absl::MutexLock lock(&idle_mu_);
  wakeups_ = std::min(wakeups_ + 1, options_.threads);
}

void WebhookSender::Run(int index) {
  const std::string owner = absl::StrCat(options_.owner, "/", index);
  // Staggered from the start: thread i first looks i poll intervals after thread 0.
  if (stop_.WaitForNotificationWithTimeout(options_.poll_interval * index)) return;
  while (!stop_.HasBeenNotified()) {
    bool worked = false;
    if (may_run_()) {
      auto found = DeliverOnce(owner);
      if (!found.ok()) {
        LogError("webhook delivery failed", {{"error", std::string(found.status().message())}});
      } else {
        worked = *found;
      }
    }
    if (worked) {
      WakeOne();
    } else {
      Idle();
    }
  }
}

absl::StatusOr<bool> WebhookSender::DeliverOnce(const std::string& owner) {
  auto lease = repository_.Claim(owner, options_.lease);
  if (!lease.ok()) return lease.status();
  if (!lease->has_value()) return false;
  // A delivery is a trace of its own, linked to the traces of the requests that made its changes;
  // its database work and its POST are inside it.
  Span span(Span::NewTrace{}, "webhook delivery", SpanKind::kProducer);
  span.SetAttribute("hotel.webhook.id", (*lease)->id);
  absl::Status delivered = Deliver(**lease, span);
  if (!delivered.ok()) span.SetError(delivered.message());
  if (!delivered.ok()) {
    repository_.Release(**lease).IgnoreError();
    return delivered;
  }
  return true;
}

absl::Status WebhookSender::Deliver(Lease& lease, Span& span) {
  if (!lease.batch) {
    int64_t scanned = 0;
    auto records = repository_.ReadChanges(lease, kMaxBatchChanges, &scanned);
    if (ErrorReason(records.status()) == "CURSOR_EXPIRED") {
      LogInfo("webhook disabled", {{"webhook", lease.id}, {"reason", "CURSOR_EXPIRED"}});
      return repository_.Disable(lease, "CURSOR_EXPIRED: the cursor fell out of the change log's retention").status();
    }
    if (!records.ok()) return records.status();
    if (records->empty()) return repository_.Skip(lease, scanned).status();
    auto frame = FrameBatch(*records, lease.selection.view, scanned);
    if (!frame.ok()) return frame.status();
    FrozenBatch batch{NewMessageId(), frame->through, std::move(frame->body), 0};
    auto frozen = repository_.FreezeBatch(lease, batch);
    if (!frozen.ok()) return frozen.status();
    if (!*frozen) return absl::OkStatus();  // taken over meanwhile
    lease.batch = std::move(batch);
  }
  const FrozenBatch& batch = *lease.batch;
  if (span.recording()) {
    span.SetAttribute("hotel.webhook.message_id", batch.id);
    span.SetAttribute("hotel.webhook.attempt", static_cast<int64_t>(batch.attempts + 1));
    for (std::string& trace_id : BatchTraceIds(batch.body, kMaxLinksPerSpan)) span.AddTraceLink(trace_id, {});
  }
  const absl::Time at = absl::Now();
  std::vector<std::string> secrets = {lease.secret};
  if (!lease.previous_secret.empty()) secrets.push_back(lease.previous_secret);  // a rotation's grace period
  auto headers = SignedHeaders(secrets, batch.id, absl::ToUnixSeconds(at), batch.body);
  if (!headers.ok()) return headers.status();
  const HttpResult result = PostJson(lease.url, *headers, batch.body, options_.http);
  AttemptRecord attempt{batch.attempts + 1,
                        at,
                        absl::ToInt64Milliseconds(result.duration),
                        result.status,
                        result.status == 0 ? result.error : "",
                        result.response_prefix};
  AttemptResult outcome;
  absl::StatusOr<bool> recorded;
  if (result.accepted()) {
    recorded = repository_.RecordSuccess(lease, attempt);
    outcome = AttemptResult::kDelivered;
  } else {
    absl::BitGen random;
    std::optional<absl::Duration> retry = NextRetry(options_.retry, attempt.number, result, random);
    const bool gone = result.status == 410;
    const bool disable = gone || !retry;
    const std::string reason =
        gone ? "the endpoint answered 410 Gone"
             : absl::StrCat("every attempt of the retry schedule failed; the last: ", result.Describe());
    recorded =
        repository_.RecordFailure(lease, attempt, retry.value_or(absl::ZeroDuration()), disable, disable ? reason : "");
    outcome = disable ? AttemptResult::kDisabled : AttemptResult::kFailed;
    if (disable) LogInfo("webhook disabled", {{"webhook", lease.id}, {"reason", reason}});
  }
  span.SetAttribute("http.request.method", std::string("POST"));
  if (result.status != 0) span.SetAttribute("http.response.status_code", static_cast<int64_t>(result.status));
  if (!result.accepted()) span.SetError(result.Describe());
  if (!recorded.ok()) return recorded.status();
  if (!*recorded) outcome = AttemptResult::kFenced;
  attempts_[static_cast<int>(outcome)].fetch_add(1, std::memory_order_relaxed);
  if (on_attempt_) on_attempt_(outcome, result);
  return absl::OkStatus();
}

}  // namespace hotel::webhooks
