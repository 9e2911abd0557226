#include "api/admission.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "api/call_runner.h"
#include "common/call_context.h"
#include "common/errors.h"
#include "hotel/v1/changes.pb.h"
#include "hotel/v1/maintenance.pb.h"
#include "hotel/v1/rooms.pb.h"

namespace hotel::api {
namespace {

absl::Time Later() { return absl::Now() + absl::Seconds(10); }

TEST(AdmissionControl, AdmitsUpToTheLimitThenQueuesThenRefusesAtOnce) {
  AdmissionControl admission({/*limit=*/2, /*queue=*/0, absl::Milliseconds(20)});
  auto first = admission.Admit(Later());
  auto second = admission.Admit(Later());
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(second.ok());
  auto third = admission.Admit(Later());
  EXPECT_EQ(third.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(ErrorReason(third.status()), "OVERLOADED");
  const AdmissionStats stats = admission.Stats();
  EXPECT_EQ(stats.in_flight, 2);
  EXPECT_EQ(stats.admitted_total, 2);
  // No room to wait: refused at once, not after waiting out the queue timeout (counted apart; a
  // state, not a clock reading, which a loaded machine or a sanitizer stretches).
  EXPECT_EQ(stats.shed_queue_full_total, 1);
  EXPECT_EQ(stats.shed_queue_timeout_total, 0);
  EXPECT_EQ(stats.queue_wait_count, 0);
}

TEST(AdmissionControl, AReleasedSlotIsReused) {
  AdmissionControl admission({1, 0, absl::Milliseconds(20)});
  {
    auto ticket = admission.Admit(Later());
    ASSERT_TRUE(ticket.ok());
  }
  EXPECT_EQ(admission.Stats().in_flight, 0);
  EXPECT_TRUE(admission.Admit(Later()).ok());
}

TEST(AdmissionControl, AQueuedCallGetsTheSlotThatFrees) {
  AdmissionControl admission({1, 1, absl::Seconds(5)});
  auto held = std::make_unique<absl::StatusOr<AdmissionControl::Ticket>>(admission.Admit(Later()));
  ASSERT_TRUE(held->ok());
  std::thread release([&] {
    // Once the second call waits in the queue (state, not time), its slot frees.
    while (admission.Stats().queued == 0) std::this_thread::yield();
    held.reset();
  });
  auto waited = admission.Admit(Later());
  release.join();
  EXPECT_TRUE(waited.ok());
  const AdmissionStats stats = admission.Stats();
  EXPECT_EQ(stats.queue_wait_count, 1);
  EXPECT_GT(stats.queue_wait_seconds_total, 0);
}

TEST(AdmissionControl, AQueuedCallIsRefusedAfterTheQueueTimeout) {
  AdmissionControl admission({1, 1, absl::Milliseconds(30)});
  auto held = admission.Admit(Later());
  ASSERT_TRUE(held.ok());
  const absl::Time start = absl::Now();
  auto refused = admission.Admit(Later());
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(25));
  EXPECT_EQ(ErrorReason(refused.status()), "OVERLOADED");
  EXPECT_EQ(admission.Stats().shed_queue_timeout_total, 1);
}

TEST(AdmissionControl, ACallWhoseDeadlinePassesWhileQueuedGetsDeadlineExceeded) {
  AdmissionControl admission({1, 1, absl::Seconds(5)});
  auto held = admission.Admit(Later());
  auto late = admission.Admit(absl::Now() + absl::Milliseconds(20));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(admission.Stats().deadline_in_queue_total, 1);
}

TEST(AdmissionControl, NeverMoreInFlightThanTheLimitUnderContention) {
  AdmissionControl admission({3, 4, absl::Milliseconds(50)});
  std::atomic<int> running{0}, most{0}, served{0}, refused{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 16; ++w) {
    workers.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        auto ticket = admission.Admit(Later());
        if (!ticket.ok()) {
          ++refused;
          continue;
        }
        const int now = ++running;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        absl::SleepFor(absl::Microseconds(200));
        --running;
        ++served;
      }
    });
  }
  for (auto& t : workers) t.join();
  EXPECT_LE(most.load(), 3);
  EXPECT_EQ(served + refused, 16 * 50);
  EXPECT_EQ(admission.Stats().in_flight, 0);
  EXPECT_EQ(admission.Stats().queued, 0);
}

TEST(NextAdaptiveLimit, GrowsWhileLatencyStaysNearItsShortest) {
  EXPECT_GT(NextAdaptiveLimit(10, absl::Milliseconds(1), absl::Milliseconds(1), 2, 100), 10);
}

TEST(NextAdaptiveLimit, ShrinksWhenLatencyGrowsFromQueueing) {
  EXPECT_LT(NextAdaptiveLimit(40, absl::Milliseconds(1), absl::Milliseconds(10), 2, 100), 40);
}

TEST(NextAdaptiveLimit, StaysWithinItsBounds) {
  EXPECT_EQ(NextAdaptiveLimit(100, absl::Milliseconds(1), absl::Milliseconds(1), 2, 100), 100);
  const double floor = NextAdaptiveLimit(2, absl::Milliseconds(1), absl::Seconds(1), 2, 100);
  EXPECT_GE(floor, 2);
  EXPECT_LT(floor, 3);
}

TEST(NextAdaptiveLimit, KeepsFallingWhileLatencyStaysHigh) {
  double limit = 32;
  for (int window = 0; window < 40; ++window) {
    limit = NextAdaptiveLimit(limit, absl::Microseconds(50), absl::Milliseconds(1), 2, 64);
  }
  // Towards 4, where the probe of sqrt(limit) balances the halving; rounding each step used to
  // stall it near 11.
  EXPECT_LT(limit, 7);
}

TEST(CallKindOf, ReadsWritesAndStreamsByTheirMethodsDeclaration) {
  EXPECT_EQ(CallKindOf(hotel::v1::GetRoomRequest()), CallKind::kRead);
  EXPECT_EQ(CallKindOf(hotel::v1::ListIssuesRequest()), CallKind::kRead);
  EXPECT_EQ(CallKindOf(hotel::v1::CreateIssueRequest()), CallKind::kWrite);
  EXPECT_EQ(CallKindOf(hotel::v1::UpdateIssueRequest()), CallKind::kWrite);
  EXPECT_EQ(CallKindOf(hotel::v1::WatchChangesRequest()), CallKind::kStream);
  // By idempotency_level, not by name: a read whose name says nothing, a write named like a read.
  EXPECT_EQ(CallKindOf(hotel::v1::GetIssueStatsRequest()), CallKind::kRead);
  EXPECT_EQ(CallKindOf(hotel::v1::ApplyScheduleActionRequest()), CallKind::kWrite);
}

TEST(RequestBudget, CheckedOnlyWithinARequest) {
  EXPECT_TRUE(CheckRequestBudget("step").ok());
  EXPECT_EQ(RequestTimeLeft(), absl::InfiniteDuration());
  CallContext past{std::nullopt, {absl::Now() - absl::Milliseconds(1), nullptr}};
  {
    ScopedCallContext scope(&past);
    EXPECT_EQ(CheckRequestBudget("before commit").code(), absl::StatusCode::kDeadlineExceeded);
    CallContext gone{std::nullopt, {absl::Now() + absl::Seconds(1), [] { return true; }}};
    {
      ScopedCallContext inner(&gone);
      EXPECT_EQ(CheckRequestBudget("step").code(), absl::StatusCode::kCancelled);
    }
    EXPECT_EQ(CheckRequestBudget("step").code(), absl::StatusCode::kDeadlineExceeded);  // outer restored
  }
  EXPECT_TRUE(CheckRequestBudget("step").ok());
}

}  // namespace
}  // namespace hotel::api
