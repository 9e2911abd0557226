#include "api/admission.h"

#include <algorithm>
#include <cmath>

#include "absl/time/clock.h"
#include "common/errors.h"

namespace hotel::api {

AdmissionOptions AdmissionOptions::FromConfig(const Config& config) {
  AdmissionOptions options;
  options.limit = config.max_in_flight > 0 ? config.max_in_flight : 2 * config.pool_size;
  options.queue = config.admission_queue >= 0 ? config.admission_queue : std::max(1, options.limit / 2);
  options.queue_timeout = config.admission_queue_timeout;
  options.adaptive = config.adaptive_limit;
  return options;
}
namespace {

// Calls per adaptive window, and windows before the shortest latency is forgotten (so that a
// limit learnt on an idle database can rise again when the database got slower for good).
constexpr int kWindowCalls = 200;
constexpr int kWindowsPerReset = 50;

}  // namespace

double NextAdaptiveLimit(double limit, absl::Duration shortest, absl::Duration average, int min_limit, int max_limit) {
  if (average <= absl::ZeroDuration() || shortest == absl::InfiniteDuration()) return limit;
  // Latency up to twice the shortest is no queueing yet (noise, cache misses): no change.
  const double gradient = std::clamp(2 * absl::FDivDuration(shortest, average), 0.5, 1.0);
  // Probe upwards by sqrt(limit) calls, so a limit that sits below capacity grows.
  const double next = limit * gradient + std::sqrt(limit);
  // Smoothed, so one slow window does not halve the limit.
  return std::clamp(0.8 * limit + 0.2 * next, static_cast<double>(min_limit), static_cast<double>(max_limit));
}

AdmissionControl::AdmissionControl(AdmissionOptions options)
    : options_(options),
      limit_(options.adaptive ? std::max(options.min_limit, options.limit / 2) : options.limit),
      adaptive_limit_(limit_),
      calls_(options.limit + options.queue),
      probes_(options.probe_threads),
      streams_(options.stream_threads) {}

AdmissionControl::~AdmissionControl() = default;

void AdmissionControl::Submit(absl::Time deadline, Task task) {
  if (!calls_.TryReserve()) {
    // Every call thread has a call, admitted or waiting for a slot: the queue is full.
    {
      absl::MutexLock lock(&mu_);
      ++counters_.shed_queue_full_total;
    }
    return std::move(task)(Overloaded());
  }
  calls_.ScheduleReserved([this, deadline, task = std::move(task)]() mutable {
    absl::StatusOr<Ticket> ticket = Admit(deadline);  // held until task returns
    std::move(task)(ticket.status());
  });
}

AdmissionControl::Ticket::~Ticket() {
  if (owner_ != nullptr) owner_->Release(absl::Now() - admitted_at_);
}

absl::StatusOr<AdmissionControl::Ticket> AdmissionControl::Admit(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  auto has_slot = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return in_flight_ < limit_; };
  // Waiters go first: a new call takes a free slot only when nobody waits for one.
  if (queued_ == 0 && has_slot()) {
    ++in_flight_;
    ++counters_.admitted_total;
    return Ticket(this, absl::Now());
  }
  if (queued_ >= options_.queue) {
    ++counters_.shed_queue_full_total;
    return Overloaded();
  }
  const absl::Time start = absl::Now();
  const absl::Time give_up = std::min(start + options_.queue_timeout, deadline);
  ++queued_;
  const bool admitted = mu_.AwaitWithDeadline(absl::Condition(&has_slot), give_up);
  --queued_;
  const absl::Time now = absl::Now();
  const double waited = absl::ToDoubleSeconds(now - start);
  ++counters_.queue_wait_count;
  counters_.queue_wait_seconds_total += waited;
  for (size_t i = 0; i < kQueueWaitBuckets.size(); ++i) {
    if (waited <= kQueueWaitBuckets[i]) {
      ++counters_.queue_wait_buckets[i];
      break;
    }
  }
  if (!admitted) {
    if (now >= deadline) {
      ++counters_.deadline_in_queue_total;
      return absl::DeadlineExceededError("the request's deadline passed while it waited for the server");
    }
    ++counters_.shed_queue_timeout_total;
    return Overloaded();
  }
  ++in_flight_;
  ++counters_.admitted_total;
  return Ticket(this, now);
}

absl::Status AdmissionControl::Overloaded() {
  return UnavailableError("OVERLOADED", "the server is overloaded; retry after a back-off");
}

void AdmissionControl::Release(absl::Duration latency) {
  absl::MutexLock lock(&mu_);
  --in_flight_;
  if (!options_.adaptive) return;
  window_sum_ += latency;
  if (++window_count_ < kWindowCalls) return;
  // The baseline is the best recent window's average, not the fastest single call: a cache hit
  // among slow writes is no measure of the latency without queueing.
  const absl::Duration average = window_sum_ / window_count_;
  shortest_ = std::min(shortest_, average);
  adaptive_limit_ = NextAdaptiveLimit(adaptive_limit_, shortest_, average, options_.min_limit, options_.limit);
  limit_ = static_cast<int>(std::lround(adaptive_limit_));
  window_sum_ = absl::ZeroDuration();
  window_count_ = 0;
  if (++windows_since_reset_ >= kWindowsPerReset) {
    shortest_ = absl::InfiniteDuration();
    windows_since_reset_ = 0;
  }
}

AdmissionStats AdmissionControl::Stats() const {
  absl::MutexLock lock(&mu_);
  AdmissionStats out = counters_;
  out.limit = limit_;
  out.in_flight = in_flight_;
  out.queued = queued_;
  return out;
}

}  // namespace hotel::api
