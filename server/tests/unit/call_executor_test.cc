// The call executor: a call is taken only while a thread is free for it, every taken call runs,
// and nothing runs after the executor is gone.
#include "api/call_executor.h"

#include <gtest/gtest.h>

#include <atomic>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"

namespace hotel::api {
namespace {

TEST(CallExecutorTest, TakesACallOnlyWhileAThreadIsFreeForIt) {
  CallExecutor executor(2);
  absl::Notification release;
  std::atomic<int> ran = 0;
  auto blocked = [&] {
    release.WaitForNotification();
    ++ran;
  };
  EXPECT_TRUE(executor.TrySchedule(blocked));
  EXPECT_TRUE(executor.TrySchedule(blocked));
  EXPECT_FALSE(executor.TrySchedule([&] { ++ran; }));  // both threads hold a call: refused
  EXPECT_EQ(executor.pending(), 2);
  executor.Schedule([&] { ++ran; });  // probes and catch-ups wait their turn instead
  release.Notify();
  while (executor.pending() > 0) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_EQ(ran.load(), 3);
  EXPECT_TRUE(executor.TrySchedule([&] { ++ran; }));  // free again
}

TEST(CallExecutorTest, RunsEverythingScheduledBeforeItIsDestroyed) {
  std::atomic<int> ran = 0;
  {
    CallExecutor executor(1);
    for (int i = 0; i < 50; ++i) {
      executor.Schedule([&] {
        absl::SleepFor(absl::Microseconds(100));
        ++ran;
      });
    }
  }
  EXPECT_EQ(ran.load(), 50);
}

}  // namespace
}  // namespace hotel::api
