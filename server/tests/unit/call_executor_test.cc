// The call executor: a call is taken only while a thread is free for it, every taken call runs,
// and nothing runs after the executor is gone.
#include "api/call_executor.h"

#include <gtest/gtest.h>

#include <atomic>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"

namespace hotel::api {
namespace {

TEST(CallExecutorTest, TakesACallOnlyWhileAThreadIsFreeForIt) {
  CallExecutor executor(2);
  absl::Notification release;
  absl::BlockingCounter done(3);
  auto blocked = [&] {
    release.WaitForNotification();
    done.DecrementCount();
  };
  ASSERT_TRUE(executor.TryReserve());
  executor.ScheduleReserved(blocked);
  ASSERT_TRUE(executor.TryReserve());   // a reserved place counts before its task comes
  EXPECT_FALSE(executor.TryReserve());  // both threads hold a call: refused
  executor.ScheduleReserved(blocked);
  EXPECT_EQ(executor.pending(), 2);
  executor.Schedule([&] { done.DecrementCount(); });  // unbounded work waits its turn instead
  release.Notify();
  done.Wait();
  absl::Notification ran;
  // Free again once the threads are back (pending counts a task until it has returned).
  while (!executor.TryReserve()) absl::SleepFor(absl::Milliseconds(1));
  executor.ScheduleReserved([&] { ran.Notify(); });
  EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
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
