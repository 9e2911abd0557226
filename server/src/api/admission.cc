#include "api/admission.h"

#include <algorithm>

#include "absl/time/clock.h"
#include "common/errors.h"

namespace hotel::api {

AdmissionOptions AdmissionOptions::FromConfig(const Config& config) {
  AdmissionOptions options;
  options.limit = config.max_in_flight > 0 ? config.max_in_flight : 2 * config.pool_size;
  options.min_limit =
      std::min(options.limit, config.min_in_flight > 0 ? config.min_in_flight : std::max(1, config.pool_size / 2));
  options.queue = config.admission_queue >= 0 ? config.admission_queue : 4 * options.limit;
  options.max_wait = config.admission_max_wait;
  return options;
}

absl::Time LatestStart(absl::Time now, absl::Time deadline, int ahead, int limit, absl::Duration hold) {
  const absl::Time latest = deadline - hold;
  const absl::Duration expected_wait = hold * (ahead + 1) / std::max(1, limit);
  return now + expected_wait <= latest ? latest : absl::InfinitePast();
}

AdmissionControl::AdmissionControl(AdmissionOptions options)
    : options_(options),
      limit_(options.min_limit < 0 ? options.limit : options.min_limit, options.limit),
      standing_(options.queue_target, options.queue_interval),
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
  auto has_slot = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return in_flight_ < limit_.current(); };
  const absl::Time start = absl::Now();
  // Waiters go first: a new call takes a free slot only when nobody waits for one.
  if (queued_ == 0 && has_slot()) {
    standing_.Observe(absl::ZeroDuration(), start);
    ++in_flight_;
    ++counters_.admitted_total;
    return Ticket(this, start);
  }
  if (queued_ >= options_.queue) {
    ++counters_.shed_queue_full_total;
    return Overloaded();
  }
  // While the queue stands, a call may expect to wait max_wait at most, deadline or not: the refusal is
  // decided here, on arrival. An estimate that was short is absorbed, not refused late: a queued call
  // then waits up to twice the bound, within its deadline.
  const bool stands = standing_.Stands(start);
  const absl::Time bound = stands ? std::min(deadline, start + options_.max_wait + limit_.hold()) : deadline;
  const absl::Time latest_start = LatestStart(start, bound, queued_, limit_.current(), limit_.hold());
  if (latest_start == absl::InfinitePast()) {
    ++counters_.shed_budget_total;
    return Overloaded();
  }
  const absl::Time patience = stands ? std::min(deadline - limit_.hold(), start + 2 * options_.max_wait) : latest_start;
  const absl::Time give_up = std::min(start + options_.queue_timeout, patience);
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
  standing_.Observe(now - start, now);
  ++in_flight_;
  ++counters_.admitted_total;
  return Ticket(this, now);
}

absl::Status AdmissionControl::Overloaded() {
  return UnavailableError("OVERLOADED", "the server is overloaded; retry after a back-off");
}

void AdmissionControl::Release(absl::Duration latency) {
  absl::MutexLock lock(&mu_);
  limit_.Observe(latency, in_flight_, absl::Now());
  --in_flight_;
}

AdmissionStats AdmissionControl::Stats() const {
  absl::MutexLock lock(&mu_);
  AdmissionStats out = counters_;
  out.limit = limit_.current();
  out.in_flight = in_flight_;
  out.queued = queued_;
  return out;
}

}  // namespace hotel::api
