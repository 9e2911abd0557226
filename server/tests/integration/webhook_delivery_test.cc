// Webhook delivery against a real PostgreSQL (migration 0014): many senders leasing the same
// subscriptions while writers commit, with nothing lost or doubled per subscription and each
// subscription's batches in feed order; fencing: a sender whose lease was taken over changes
// nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "changes/change_repository.h"
#include "common/change_cursor.h"
#include "common/errors.h"
#include "issues/issue_repository.h"
#include "test_database.h"
#include "webhooks/webhook_message.h"
#include "webhooks/webhook_repository.h"
#include "webhooks/webhook_signature.h"

namespace hotel {
namespace {

using namespace hotel::webhooks;
using hotel::v1::Issue;

constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();

class WebhookDeliveryTest : public ::testing::Test {
 protected:
  WebhookDeliveryTest()
      : log_(testing::TestDatabase::Get().pool()),
        issues_(testing::TestDatabase::Get().pool()),
        webhooks_(testing::TestDatabase::Get().pool(), log_) {
    testing::TestDatabase::Get().Exec("DELETE FROM webhooks");
  }

  void CreateIssue(const std::string& room, const std::string& title) {
    hotel::v1::CreateIssueRequest request;
    request.set_property_id("BER1");
    request.set_room_number(room);
    request.set_title(title);
    request.set_category(Issue::HVAC);
    request.set_priority(Issue::LOW);
    request.set_reported_by("it-webhooks");
    Issue out;
    auto status = issues_.Create(*issues::ValidateCreateIssue(request), &out);
    ASSERT_TRUE(status.ok()) << status;
  }

  int64_t Head() {
    EXPECT_TRUE(log_.Sequence().ok());
    return *log_.Head();
  }

  std::string Subscribe(std::vector<std::string> types, std::string property, int64_t start) {
    NewWebhook webhook;
    webhook.url = "http://127.0.0.1:9/never-called";
    webhook.selection.filter.resource_types = std::move(types);
    webhook.selection.filter.property_id = std::move(property);
    hotel::v1::Webhook out;
    auto status = webhooks_.Create(webhook, NewSecret(), start, &out);
    EXPECT_TRUE(status.ok()) << status;
    return out.id();
  }

  // The seqs the feed holds after `after` for filter.
  std::vector<int64_t> FeedSeqs(int64_t after, const changes::ChangeFilter& filter) {
    std::vector<int64_t> seqs;
    while (true) {
      auto page = log_.Read(after, kEnd, filter, 500, hotel::v1::CHANGE_VIEW_BASIC);
      EXPECT_TRUE(page.ok());
      if (page->changes.empty()) return seqs;
      for (const auto& c : page->changes) seqs.push_back(c.seq);
      after = page->changes.back().seq;
    }
  }

  changes::ChangeRepository log_;
  issues::IssueRepository issues_;
  WebhookRepository webhooks_;
};

// One sender's round without HTTP: every batch "answered 2xx". Appends what it delivered.
bool DeliverOnce(WebhookRepository& webhooks, const std::string& owner,
                 std::map<std::string, std::vector<int64_t>>& delivered, std::mutex& mu) {
  // A lease longer than any stall of a loaded test machine: a takeover here would leave a batch in
  // flight, which this round does not resend (AStaleLeaseCannotAdvanceTheCursor tests takeovers).
  auto lease = webhooks.Claim(owner, absl::Seconds(60));
  EXPECT_TRUE(lease.ok()) << lease.status();
  if (!lease.ok() || !lease->has_value()) return false;
  Lease& l = **lease;
  std::vector<int64_t> seqs;
  if (!l.batch) {
    int64_t scanned = 0;
    auto records = webhooks.ReadChanges(l, kMaxBatchChanges, &scanned);
    EXPECT_TRUE(records.ok()) << records.status();
    if (records->empty()) {
      EXPECT_TRUE(webhooks.Skip(l, scanned).ok());
      return true;
    }
    auto frame = FrameBatch(*records, hotel::v1::CHANGE_VIEW_BASIC, scanned);
    EXPECT_TRUE(frame.ok());
    for (const auto& r : *records) seqs.push_back(r.seq);
    FrozenBatch batch{NewMessageId(), frame->through, frame->body, 0};
    auto frozen = webhooks.FreezeBatch(l, batch);
    EXPECT_TRUE(frozen.ok());
    if (!*frozen) return true;
    l.batch = batch;
  } else {
    ADD_FAILURE() << "a batch was left in flight although every attempt succeeds";
    return true;
  }
  AttemptRecord attempt{1, absl::Now(), 1, 204, "", ""};
  auto recorded = webhooks.RecordSuccess(l, attempt);
  EXPECT_TRUE(recorded.ok()) << recorded.status();
  if (recorded.ok() && *recorded) {
    std::lock_guard<std::mutex> lock(mu);
    auto& list = delivered[l.id];
    list.insert(list.end(), seqs.begin(), seqs.end());
  }
  return true;
}

TEST_F(WebhookDeliveryTest, ManySendersDeliverEverythingOnceInOrder) {
  const int64_t start = Head();
  const std::string all = Subscribe({}, "", start);
  const std::string issues_ber1 = Subscribe({"ISSUE"}, "BER1", start);
  const std::string rooms = Subscribe({"ROOM"}, "", start);
  std::atomic<bool> writing{true};
  std::map<std::string, std::vector<int64_t>> delivered;
  std::mutex mu;
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    while (writing.load()) {
      EXPECT_TRUE(log_.Sequence().ok());
      absl::SleepFor(absl::Milliseconds(2));
    }
  });
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < 60; ++i) CreateIssue(absl::StrCat(101 + (w + i) % 3), absl::StrCat("w", w, " #", i));
    });
  }
  std::atomic<bool> sending{true};
  std::vector<std::thread> senders;
  for (int s = 0; s < 6; ++s) {
    senders.emplace_back([&, s] {
      while (sending.load()) {
        if (!DeliverOnce(webhooks_, absl::StrCat("it/", s), delivered, mu)) absl::SleepFor(absl::Milliseconds(1));
      }
    });
  }
  for (size_t i = 1; i < threads.size(); ++i) threads[i].join();
  writing = false;
  threads[0].join();
  const int64_t head = Head();
  // Let the senders catch up with the head.
  EXPECT_TRUE(testing::Eventually(
      [&] {
        return testing::TestDatabase::Get().Scalar(
                   absl::StrCat("SELECT count(*) FROM webhooks WHERE delivered_through < ", head)) == "0";
      },
      absl::Seconds(60)));
  sending = false;
  for (auto& t : senders) t.join();
  EXPECT_EQ(delivered[all], FeedSeqs(start, {}));
  EXPECT_EQ(delivered[issues_ber1], FeedSeqs(start, {{"ISSUE"}, "BER1"}));
  EXPECT_EQ(delivered[rooms], FeedSeqs(start, {{"ROOM"}, ""}));
  EXPECT_GE(delivered[issues_ber1].size(), 240u);
  // Every success is logged once per batch, with the cursor range it carried.
  EXPECT_EQ(testing::TestDatabase::Get().Scalar(absl::StrCat(
                "SELECT count(*) FROM webhook_deliveries WHERE webhook_id = '", issues_ber1, "' AND NOT succeeded")),
            "0");
}

TEST_F(WebhookDeliveryTest, AStaleLeaseCannotAdvanceTheCursor) {
  const int64_t start = Head();
  const std::string id = Subscribe({"ISSUE"}, "", start);
  CreateIssue("104", "fenced");
  Head();
  auto first = webhooks_.Claim("replica-a", absl::Milliseconds(1));
  ASSERT_TRUE(first.ok() && first->has_value());
  // The lease expires (replica-a is paused, say), by the database's clock, which judges it.
  ASSERT_TRUE(testing::Eventually([&] {
    return testing::TestDatabase::Get().Scalar(
               absl::StrCat("SELECT lease_expires_at < now() FROM webhooks WHERE id = '", id, "'")) == "t";
  }));
  auto second = webhooks_.Claim("replica-b", absl::Seconds(5));
  ASSERT_TRUE(second.ok() && second->has_value()) << "the expired lease is taken over";
  EXPECT_EQ((*second)->token, (*first)->token + 1);
  int64_t scanned = 0;
  auto records = webhooks_.ReadChanges(**first, kMaxBatchChanges, &scanned);
  ASSERT_TRUE(records.ok() && !records->empty());
  FrozenBatch batch{NewMessageId(), records->back().seq, "{}", 0};
  EXPECT_FALSE(*webhooks_.FreezeBatch(**first, batch)) << "the stale owner cannot freeze a batch";
  EXPECT_FALSE(*webhooks_.Skip(**first, scanned));
  ASSERT_TRUE(*webhooks_.FreezeBatch(**second, batch));
  (*first)->batch = batch;
  (*second)->batch = batch;
  AttemptRecord attempt{1, absl::Now(), 3, 204, "", "ok"};
  EXPECT_FALSE(*webhooks_.RecordSuccess(**first, attempt)) << "nor advance the cursor";
  EXPECT_EQ(
      testing::TestDatabase::Get().Scalar(absl::StrCat("SELECT delivered_through FROM webhooks WHERE id = '", id, "'")),
      absl::StrCat(start));
  EXPECT_TRUE(*webhooks_.RecordSuccess(**second, attempt));
  EXPECT_EQ(
      testing::TestDatabase::Get().Scalar(absl::StrCat("SELECT delivered_through FROM webhooks WHERE id = '", id, "'")),
      absl::StrCat(batch.through));
  EXPECT_EQ(testing::TestDatabase::Get().Scalar(
                absl::StrCat("SELECT count(*) FROM webhook_deliveries WHERE webhook_id = '", id, "'")),
            "1");
}

// An editor reads a subscription, a sender delivers a batch (the cursor moves), then the edit
// lands: a delivery is not a conflict, and the edit keeps the delivered cursor. A rotation between
// the read and the edit is a conflict.
TEST_F(WebhookDeliveryTest, AnEditIsNotRefusedBecauseADeliveryMovedTheCursor) {
  const int64_t start = Head();
  const std::string id = Subscribe({"ISSUE"}, "", start);
  hotel::v1::Webhook read;
  ASSERT_TRUE(webhooks_.Get(id, &read).ok());
  CreateIssue("104", "delivered meanwhile");
  Head();  // sequenced
  std::map<std::string, std::vector<int64_t>> delivered;
  std::mutex mu;
  ASSERT_TRUE(DeliverOnce(webhooks_, "sender", delivered, mu));
  ASSERT_FALSE(delivered[id].empty());
  hotel::v1::Webhook patch;
  patch.set_property_id("BER1");
  const auto allow = *AllowList::Parse(AllowList::kLoopback);
  auto plan = PlanWebhookUpdate(read, patch, {"property_id"}, allow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  hotel::v1::Webhook edited;
  absl::Status status = webhooks_.Update(read, *plan, &edited);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(edited.property_id(), "BER1");
  EXPECT_NE(edited.cursor(), read.cursor());
  EXPECT_EQ(edited.cursor(), EncodeChangeCursor(std::stoll(testing::TestDatabase::Get().Scalar(
                                 absl::StrCat("SELECT delivered_through FROM webhooks WHERE id = '", id, "'")))))
      << "the edit keeps the delivered cursor";

  ASSERT_TRUE(webhooks_.RotateSecret(id, NewSecret(), absl::Minutes(1), &read).ok());
  hotel::v1::Webhook rotated_meanwhile;
  status = webhooks_.Update(edited, *PlanWebhookUpdate(edited, patch, {"property_id"}, allow), &rotated_meanwhile);
  EXPECT_EQ(ErrorReason(status), "CONCURRENT_UPDATE") << status;
}

TEST_F(WebhookDeliveryTest, FailuresKeepTheBatchAndDisable) {
  const int64_t start = Head();
  const std::string id = Subscribe({"ISSUE"}, "", start);
  CreateIssue("104", "failing");
  Head();
  auto lease = webhooks_.Claim("a", absl::Seconds(5));
  ASSERT_TRUE(lease.ok() && lease->has_value());
  int64_t scanned = 0;
  auto records = webhooks_.ReadChanges(**lease, kMaxBatchChanges, &scanned);
  ASSERT_TRUE(records.ok());
  FrozenBatch batch{NewMessageId(), scanned, "{\"data\":[]}", 0};
  ASSERT_TRUE(*webhooks_.FreezeBatch(**lease, batch));
  (*lease)->batch = batch;
  AttemptRecord attempt{1, absl::Now(), 3, 500, "", "oops"};
  ASSERT_TRUE(*webhooks_.RecordFailure(**lease, attempt, absl::ZeroDuration(), false, ""));
  // The next claim gets the same frozen batch back.
  auto again = webhooks_.Claim("b", absl::Seconds(5));
  ASSERT_TRUE(again.ok() && again->has_value());
  ASSERT_TRUE((*again)->batch.has_value());
  EXPECT_EQ((*again)->batch->id, batch.id);
  EXPECT_EQ((*again)->batch->body, batch.body);
  EXPECT_EQ((*again)->batch->attempts, 1);
  attempt.number = 2;
  attempt.status = 410;
  ASSERT_TRUE(*webhooks_.RecordFailure(**again, attempt, absl::ZeroDuration(), true, "the endpoint answered 410 Gone"));
  hotel::v1::Webhook after;
  ASSERT_TRUE(webhooks_.Get(id, &after).ok());
  EXPECT_EQ(after.state(), hotel::v1::Webhook::DISABLED);
  EXPECT_EQ(after.disabled_reason(), "the endpoint answered 410 Gone");
  EXPECT_EQ(after.cursor(), EncodeChangeCursor(start));
  auto none = webhooks_.Claim("c", absl::Seconds(5));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value()) << "a disabled subscription is not delivered";
}

TEST_F(WebhookDeliveryTest, ResumingAfterTheRetentionIsCursorExpired) {
  const int64_t start = Head();
  const std::string id = Subscribe({"ISSUE"}, "", start);
  CreateIssue("104", "pruned away");
  const int64_t head = Head();
  hotel::v1::Webhook current;
  ASSERT_TRUE(webhooks_.Get(id, &current).ok());
  hotel::v1::Webhook patch;
  patch.set_state(hotel::v1::Webhook::PAUSED);
  auto pause = PlanWebhookUpdate(current, patch, {"state"}, *AllowList::Parse(AllowList::kLoopback));
  ASSERT_TRUE(pause.ok());
  hotel::v1::Webhook paused;
  ASSERT_TRUE(webhooks_.Update(current, *pause, &paused).ok());
  // The log prunes everything up to the head (as retention would), then a resume is refused.
  auto& db = testing::TestDatabase::Get();
  const std::string pruned = db.Scalar("SELECT value FROM change_log_state WHERE name = 'pruned_through'");
  db.ExecAsAdmin(absl::StrCat("UPDATE change_log_state SET value = ", head, " WHERE name = 'pruned_through'"));
  patch.set_state(hotel::v1::Webhook::ACTIVE);
  auto resume = PlanWebhookUpdate(paused, patch, {"state"}, *AllowList::Parse(AllowList::kLoopback));
  ASSERT_TRUE(resume.ok() && resume->resumed);
  hotel::v1::Webhook out;
  absl::Status refused = webhooks_.Update(paused, *resume, &out);
  db.ExecAsAdmin(absl::StrCat("UPDATE change_log_state SET value = ", pruned, " WHERE name = 'pruned_through'"));
  EXPECT_EQ(ErrorReason(refused), "CURSOR_EXPIRED") << refused;
  // Within the retention the resume succeeds from the kept cursor.
  ASSERT_TRUE(webhooks_.Update(paused, *resume, &out).ok());
  EXPECT_EQ(out.state(), hotel::v1::Webhook::ACTIVE);
  EXPECT_EQ(out.cursor(), EncodeChangeCursor(start));
}

}  // namespace
}  // namespace hotel
