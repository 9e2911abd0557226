#include "common/call_context.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace hotel {
namespace {
thread_local const CallContext* current_call = nullptr;
// A copy: the observer that published it may be gone before the handler runs.
thread_local std::optional<RequestSpan> arriving_span;
}  // namespace

ScopedCallContext::ScopedCallContext(const CallContext* call) : previous_(current_call) { current_call = call; }

ScopedCallContext::~ScopedCallContext() { current_call = previous_; }

const CallContext* CurrentCall() { return current_call; }

const RequestSpan* CurrentRequestSpan() {
  return current_call != nullptr && current_call->span ? &*current_call->span : nullptr;
}

absl::Duration RequestTimeLeft() {
  if (current_call == nullptr || current_call->budget.deadline == absl::InfiniteFuture()) {
    return absl::InfiniteDuration();
  }
  return current_call->budget.deadline - absl::Now();
}

absl::Status CheckRequestBudget(const char* step) {
  if (current_call == nullptr) return absl::OkStatus();
  const RequestBudget& budget = current_call->budget;
  if (budget.cancelled && budget.cancelled()) {
    return absl::CancelledError(absl::StrCat(step, ": the caller cancelled the request"));
  }
  if (budget.deadline <= absl::Now()) {
    return absl::DeadlineExceededError(absl::StrCat(step, ": the request's deadline has passed"));
  }
  return absl::OkStatus();
}

void PublishArrivingSpan(const RequestSpan& span) { arriving_span = span; }

std::optional<RequestSpan> TakeArrivingSpan() {
  std::optional<RequestSpan> span = std::move(arriving_span);
  arriving_span.reset();
  return span;
}

}  // namespace hotel
