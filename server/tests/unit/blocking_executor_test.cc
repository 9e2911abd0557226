#include "common/blocking_executor.h"

#include <gtest/gtest.h>

#include <atomic>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"

namespace hotel {
namespace {

TEST(BlockingExecutor, RunsEverySubmittedTaskBeforeItIsDestroyed) {
  std::atomic<int> ran{0};
  {
    BlockingExecutor executor(2);
    for (int i = 0; i < 100; ++i) executor.Submit([&] { ++ran; });
  }
  EXPECT_EQ(ran.load(), 100);
}

TEST(BlockingExecutor, BlockedTasksDoNotHoldUpTheOtherThreads) {
  BlockingExecutor executor(2);
  absl::Notification release, second_ran;
  executor.Submit([&] { release.WaitForNotification(); });  // one thread blocks, like a slow query
  executor.Submit([&] { second_ran.Notify(); });
  EXPECT_TRUE(second_ran.WaitForNotificationWithTimeout(absl::Seconds(5)));
  release.Notify();
}

TEST(BlockingExecutor, RunsNoMoreTasksAtOnceThanItHasThreads) {
  std::atomic<int> running{0}, peak{0};
  {
    BlockingExecutor executor(3);
    for (int i = 0; i < 30; ++i) {
      executor.Submit([&] {
        int now = ++running;
        int seen = peak.load();
        while (now > seen && !peak.compare_exchange_weak(seen, now)) {}
        absl::SleepFor(absl::Milliseconds(2));
        --running;
      });
    }
  }
  EXPECT_LE(peak.load(), 3);
  EXPECT_GE(peak.load(), 2);
}

}  // namespace
}  // namespace hotel
