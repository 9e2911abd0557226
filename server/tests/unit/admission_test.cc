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
  AdmissionControl admission({/*limit=*/2, /*queue=*/0});
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
  AdmissionControl admission({1, 0});
  {
    auto ticket = admission.Admit(Later());
    ASSERT_TRUE(ticket.ok());
  }
  EXPECT_EQ(admission.Stats().in_flight, 0);
  EXPECT_TRUE(admission.Admit(Later()).ok());
}

TEST(AdmissionControl, AQueuedCallGetsTheSlotThatFrees) {
  AdmissionControl admission({1, 1});
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

TEST(AdmissionControl, AQueuedCallIsRefusedAfterTheQueueTimeoutWhenOneIsSet) {
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
  AdmissionControl admission({1, 1});
  auto held = admission.Admit(Later());
  auto late = admission.Admit(absl::Now() + absl::Milliseconds(20));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(admission.Stats().deadline_in_queue_total, 1);
}

TEST(AdmissionControl, NeverMoreInFlightThanTheLimitUnderContention) {
  AdmissionControl admission({3, 4});
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

TEST(AdmissionControl, WaitsAsLongAsTheDeadlineAllowsNotBecauseLatencyRose) {
  AdmissionControl admission({1, 8});
  {
    // A slow call sets the smoothed hold time: 50 ms.
    auto slow = admission.Admit(Later());
    ASSERT_TRUE(slow.ok());
    absl::SleepFor(absl::Milliseconds(50));
  }
  auto held = std::make_unique<absl::StatusOr<AdmissionControl::Ticket>>(admission.Admit(Later()));
  ASSERT_TRUE(held->ok());
  // A deadline shorter than a hold: it cannot be served in time, refused at once without waiting.
  auto hopeless = admission.Admit(absl::Now() + absl::Milliseconds(10));
  EXPECT_EQ(ErrorReason(hopeless.status()), "OVERLOADED");
  EXPECT_EQ(admission.Stats().shed_budget_total, 1);
  EXPECT_EQ(admission.Stats().queue_wait_count, 0);
  // A deadline far away: it waits, however long the slot is held, and gets it.
  std::thread release([&] {
    while (admission.Stats().queued == 0) std::this_thread::yield();
    absl::SleepFor(absl::Milliseconds(100));  // longer than any queue timeout the server had
    held.reset();
  });
  auto patient = admission.Admit(Later());
  release.join();
  EXPECT_TRUE(patient.ok()) << patient.status();
}

TEST(LatestStart, IsTheDeadlineLessTheHoldWhenTheWaitAheadFits) {
  const absl::Time now = absl::Now();
  const absl::Duration hold = absl::Milliseconds(10);
  // 4 calls ahead over 2 slots: 25 ms expected, plus its own 10 ms.
  EXPECT_EQ(LatestStart(now, now + absl::Milliseconds(100), 4, 2, hold), now + absl::Milliseconds(90));
  EXPECT_EQ(LatestStart(now, now + absl::Milliseconds(30), 4, 2, hold), absl::InfinitePast());
  // Before any call ended there is no estimate: it waits up to its deadline.
  EXPECT_EQ(LatestStart(now, now + absl::Milliseconds(1), 100, 1, absl::ZeroDuration()), now + absl::Milliseconds(1));
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
