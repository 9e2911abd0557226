#include "common/call_context.h"

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"

namespace hotel {
namespace {
thread_local const CallContext* current_call = nullptr;

// Spans published and not yet taken, by call. Copies: the observer that published one may be
// gone before the handler runs.
struct ArrivingSpans {
  absl::Mutex mu;
  absl::flat_hash_map<const void*, RequestSpan> by_call ABSL_GUARDED_BY(mu);
};

ArrivingSpans& Arriving() {
  static ArrivingSpans* spans = new ArrivingSpans();
  return *spans;
}

}  // namespace

ScopedCallContext::ScopedCallContext(const CallContext* call) : previous_(current_call) { current_call = call; }

ScopedCallContext::~ScopedCallContext() { current_call = previous_; }

const CallContext* CurrentCall() { return current_call; }

const RequestSpan* CurrentRequestSpan() {
  return current_call != nullptr && current_call->span ? &*current_call->span : nullptr;
}

absl::Duration RequestTimeLeft(const CallContext* call) {
  if (call == nullptr || call->budget.deadline == absl::InfiniteFuture()) return absl::InfiniteDuration();
  return call->budget.deadline - absl::Now();
}

absl::Duration RequestTimeLeft() { return RequestTimeLeft(current_call); }

absl::Status CheckRequestBudget(const char* step) { return CheckRequestBudget(current_call, step); }

absl::Status CheckRequestBudget(const CallContext* call, const char* step) {
  if (call == nullptr) return absl::OkStatus();
  const RequestBudget& budget = call->budget;
  if (budget.cancelled && budget.cancelled()) {
    return absl::CancelledError(absl::StrCat(step, ": the caller cancelled the request"));
  }
  if (budget.deadline <= absl::Now()) {
    return absl::DeadlineExceededError(absl::StrCat(step, ": the request's deadline has passed"));
  }
  return absl::OkStatus();
}

void PublishArrivingSpan(const void* call, const RequestSpan& span) {
  ArrivingSpans& spans = Arriving();
  absl::MutexLock lock(&spans.mu);
  spans.by_call.insert_or_assign(call, span);
}

std::optional<RequestSpan> TakeArrivingSpan(const void* call) {
  ArrivingSpans& spans = Arriving();
  absl::MutexLock lock(&spans.mu);
  auto node = spans.by_call.extract(call);
  if (node.empty()) return std::nullopt;
  return std::move(node.mapped());
}

}  // namespace hotel
