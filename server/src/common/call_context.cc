#include "common/call_context.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace hotel {
namespace {
thread_local const CallContext* current_call = nullptr;
thread_local CallWrites* current_writes = nullptr;

}  // namespace

ScopedCallContext::ScopedCallContext(const CallContext* call, CallWrites* writes)
    : previous_(current_call), previous_writes_(current_writes) {
  current_call = call;
  current_writes = writes;
}

ScopedCallContext::~ScopedCallContext() {
  current_call = previous_;
  current_writes = previous_writes_;
}

const CallContext* CurrentCall() { return current_call; }

CallWrites* CurrentCallWrites() { return current_writes; }

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

}  // namespace hotel
