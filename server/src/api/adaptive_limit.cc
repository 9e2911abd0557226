#include "api/adaptive_limit.h"

#include <algorithm>
#include <cmath>

namespace hotel::api {
namespace {

constexpr double kHoldTolerance = 2;     // a window's hold may rise this far over the shortest first
constexpr double kMinHoldCreep = 1.01;   // the shortest hold doubles in about 70 windows unless seen again
constexpr double kLimitSmoothing = 0.2;  // a new estimate moves the limit a fifth of the way
constexpr double kHoldWeight = 1.0 / 16;

}  // namespace

AdaptiveLimit::AdaptiveLimit(int floor, int ceiling)
    : floor_(std::clamp(floor, 0, std::max(0, ceiling))), ceiling_(std::max(0, ceiling)) {
  Set(ceiling_);
}

void AdaptiveLimit::Set(double limit) {
  limit_ = std::clamp(limit, floor_, ceiling_);
  current_ = static_cast<int>(std::lround(limit_));
}

void AdaptiveLimit::Observe(absl::Duration held, int busy, absl::Time now) {
  hold_ = hold_ == absl::ZeroDuration() ? held : hold_ + (held - hold_) * kHoldWeight;
  if (window_start_ == absl::InfinitePast()) window_start_ = now;
  window_sum_ += held;
  ++window_calls_;
  window_busy_ = std::max(window_busy_, busy);
  if (now - window_start_ < kWindow || window_calls_ < kWindowMinCalls) return;
  const double window_hold = absl::ToDoubleSeconds(window_sum_ / window_calls_);
  const double busiest = window_busy_;
  window_start_ = now;
  window_sum_ = absl::ZeroDuration();
  window_calls_ = 0;
  window_busy_ = 0;
  min_hold_ = (min_hold_ == 0 || window_hold < min_hold_) ? window_hold : min_hold_ * kMinHoldCreep;
  const double gradient = window_hold <= 0 ? 1 : std::clamp(kHoldTolerance * min_hold_ / window_hold, 0.5, 1.0);
  // A limit not in use says nothing about what more would cost: it does not grow then.
  if (gradient == 1 && busiest < limit_ / 2) return;
  const double estimate = limit_ * gradient + std::sqrt(limit_);
  Set(limit_ + (estimate - limit_) * kLimitSmoothing);
}

void StandingQueue::Roll(absl::Time now) {
  if (interval_start_ == absl::InfinitePast()) {
    interval_start_ = now;
    return;
  }
  if (now - interval_start_ < interval_) return;
  // An interval in which no call was let in stands only if the one before did.
  if (shortest_ != absl::InfiniteDuration()) stands_ = shortest_ > target_;
  interval_start_ = now;
  shortest_ = absl::InfiniteDuration();
}

void StandingQueue::Observe(absl::Duration waited, absl::Time now) {
  Roll(now);
  shortest_ = std::min(shortest_, waited);
}

bool StandingQueue::Stands(absl::Time now) {
  Roll(now);
  return stands_;
}

}  // namespace hotel::api
