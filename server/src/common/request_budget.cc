#include "common/request_budget.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/errors.h"

namespace hotel {
namespace {
thread_local const RequestBudget* current_budget = nullptr;
}  // namespace

ScopedRequestBudget::ScopedRequestBudget(const RequestBudget* budget) : previous_(current_budget) {
  current_budget = budget;
}

ScopedRequestBudget::~ScopedRequestBudget() { current_budget = previous_; }

const RequestBudget* CurrentRequestBudget() { return current_budget; }

absl::Duration RequestTimeLeft() {
  if (current_budget == nullptr || current_budget->deadline == absl::InfiniteFuture()) return absl::InfiniteDuration();
  return current_budget->deadline - absl::Now();
}

absl::Status CheckRequestBudget(const char* step) {
  if (current_budget == nullptr) return absl::OkStatus();
  if (current_budget->cancelled && current_budget->cancelled()) {
    return absl::CancelledError(absl::StrCat(step, ": the caller cancelled the request"));
  }
  if (current_budget->deadline <= absl::Now()) {
    return absl::DeadlineExceededError(absl::StrCat(step, ": the request's deadline has passed"));
  }
  return absl::OkStatus();
}

}  // namespace hotel
