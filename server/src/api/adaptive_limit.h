// The in-flight limit of admission control, following what the machine serves rather than a
// constant (the gradient of Netflix's concurrency-limits; the gateway has the same one,
// gateway/internal/overload/limit.go): once a window, the limit shrinks in proportion when the
// window's average hold rises above the shortest seen (with some tolerance: calls then queue for
// the CPU or the database rather than run), and grows by about its square root while it does not
// and the limit is in use. The shortest hold creeps up slowly, so a machine that became slower for
// good is learnt again. It stays between floor and ceiling. Not thread-safe: admission serialises
// it. Pure, unit-tested.
#pragma once

#include "absl/time/time.h"

namespace hotel::api {

class AdaptiveLimit {
 public:
  AdaptiveLimit(int floor, int ceiling);

  int current() const { return current_; }
  // How long a call holds its slot, smoothed over recent calls (zero until one ends).
  absl::Duration hold() const { return hold_; }

  // A call held its slot for held while busy calls were in flight (itself included).
  void Observe(absl::Duration held, int busy, absl::Time now);

  static constexpr absl::Duration kWindow = absl::Milliseconds(100);
  static constexpr int kWindowMinCalls = 10;

 private:
  void Set(double limit);

  double floor_, ceiling_, limit_ = 0;
  int current_ = 0;
  absl::Duration hold_;
  absl::Time window_start_ = absl::InfinitePast();
  absl::Duration window_sum_;
  int window_calls_ = 0;
  int window_busy_ = 0;  // the most calls in flight seen in the window
  double min_hold_ = 0;  // the shortest window hold, creeping up a little each window, in seconds
};

// CoDel's test for a queue that does not drain: the shortest wait of the calls let in during an
// interval stayed above the target. Not thread-safe: admission serialises it. Pure, unit-tested.
class StandingQueue {
 public:
  StandingQueue(absl::Duration target, absl::Duration interval) : target_(target), interval_(interval) {}
  void Observe(absl::Duration waited, absl::Time now);
  bool Stands(absl::Time now);

 private:
  void Roll(absl::Time now);

  const absl::Duration target_, interval_;
  absl::Time interval_start_ = absl::InfinitePast();
  absl::Duration shortest_ = absl::InfiniteDuration();  // in the current interval
  bool stands_ = false;                                 // the verdict of the last whole interval
};

}  // namespace hotel::api
