#include "api/adaptive_limit.h"

#include <gtest/gtest.h>

#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "api/admission.h"
#include "common/errors.h"

namespace hotel::api {
namespace {

// Feeds windows of calls that each held their slot for hold, with busy calls in flight (-1: the
// limit, all of it in use).
void Feed(AdaptiveLimit& limit, absl::Time& now, absl::Duration hold, int windows, int busy = -1) {
  for (int w = 0; w < windows; ++w) {
    for (int i = 0; i < AdaptiveLimit::kWindowMinCalls; ++i) {
      now += AdaptiveLimit::kWindow / AdaptiveLimit::kWindowMinCalls;
      limit.Observe(hold, busy < 0 ? limit.current() : busy, now);
    }
  }
}

TEST(AdaptiveLimit, ShrinksWhenHoldsRiseAndGrowsBackWhenTheyFall) {
  AdaptiveLimit limit(4, 64);
  absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  Feed(limit, now, absl::Milliseconds(10), 20);
  const int steady = limit.current();
  Feed(limit, now, absl::Milliseconds(100), 30);  // calls queue behind the CPU: holds ten times longer
  const int shrunk = limit.current();
  EXPECT_LT(shrunk, steady / 2);
  EXPECT_GE(shrunk, 4);
  Feed(limit, now, absl::Milliseconds(10), 60);
  EXPECT_GT(limit.current(), shrunk);
  EXPECT_LE(limit.current(), 64);
}

TEST(AdaptiveLimit, AnUnusedLimitDoesNotGrow) {
  AdaptiveLimit limit(4, 64);
  absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  Feed(limit, now, absl::Milliseconds(10), 5);
  Feed(limit, now, absl::Milliseconds(100), 10);  // the limit shrinks
  const int low = limit.current();
  ASSERT_LT(low, 64);
  Feed(limit, now, absl::Milliseconds(10), 50, /*busy=*/1);
  EXPECT_LE(limit.current(), low);
}

TEST(AdaptiveLimit, AFixedLimitStaysPut) {
  AdaptiveLimit limit(8, 8);
  absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  Feed(limit, now, absl::Milliseconds(10), 5);
  Feed(limit, now, absl::Seconds(1), 20);
  EXPECT_EQ(limit.current(), 8);
}

TEST(StandingQueue, StandsOnlyWhenEveryWaitOfAnIntervalPassedTheTarget) {
  StandingQueue queue(absl::Milliseconds(5), absl::Milliseconds(100));
  const absl::Time t0 = absl::FromUnixSeconds(1'800'000'000);
  auto at = [&](int ms) { return t0 + absl::Milliseconds(ms); };
  queue.Observe(absl::Milliseconds(10), at(0));
  queue.Observe(absl::Milliseconds(20), at(50));
  EXPECT_TRUE(queue.Stands(at(100)));
  queue.Observe(absl::Milliseconds(1), at(150));  // one short wait: a burst that drained
  queue.Observe(absl::Milliseconds(30), at(180));
  EXPECT_FALSE(queue.Stands(at(200)));
}

// While the queue stands, a call whose expected wait passes max_wait is refused at arrival, even
// with a deadline far away.
TEST(AdmissionControl, AStandingQueueRefusesAtArrivalWhatWouldWaitPastMaxWait) {
  AdmissionOptions options{.limit = 1, .queue = 8};
  options.max_wait = absl::Milliseconds(20);
  options.queue_target = absl::ZeroDuration();
  options.queue_interval = absl::Milliseconds(1);
  AdmissionControl admission(options);
  const absl::Time later = absl::Now() + absl::Seconds(10);
  {
    auto slow = admission.Admit(later);  // sets the hold: 30 ms
    ASSERT_TRUE(slow.ok());
    absl::SleepFor(absl::Milliseconds(30));
  }
  auto held = std::make_unique<absl::StatusOr<AdmissionControl::Ticket>>(admission.Admit(later));
  ASSERT_TRUE(held->ok());
  // A call that waits, then keeps its slot: every wait of its interval was above the zero target.
  absl::Notification admitted, done;
  std::thread waiter([&] {
    auto ticket = admission.Admit(later);
    admitted.Notify();
    done.WaitForNotification();
  });
  while (admission.Stats().queued == 0) std::this_thread::yield();
  absl::SleepFor(absl::Milliseconds(5));
  held.reset();
  admitted.WaitForNotification();
  absl::SleepFor(absl::Milliseconds(2));  // the interval ends
  // The slot is held for about 30 ms: over the 20 ms max_wait, with ten seconds of deadline left.
  const absl::Time start = absl::Now();
  auto refused = admission.Admit(later);
  const absl::Duration took = absl::Now() - start;
  done.Notify();
  waiter.join();
  EXPECT_EQ(ErrorReason(refused.status()), "OVERLOADED");
  EXPECT_LT(took, absl::Milliseconds(15));
  EXPECT_EQ(admission.Stats().shed_budget_total, 1);
}

}  // namespace
}  // namespace hotel::api
