// The change log (migrations 0011, 0021) against a real PostgreSQL: many concurrent writers while the
// sequencer runs and a reader pages, with nothing skipped or doubled; a transaction in flight is
// never read and never skipped; an update's previous values; retention; the hub's bounded queues
// and watcher limit.
#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "changes/change_hub.h"
#include "changes/change_repository.h"
#include "common/change_cursor.h"
#include "common/errors.h"
#include "issues/issue_repository.h"
#include "test_database.h"

namespace hotel {
namespace {

using namespace hotel::changes;
using namespace hotel::issues;
using hotel::v1::Issue;

constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();

class ChangeLogTest : public ::testing::Test {
 protected:
  ChangeLogTest() : log_(testing::TestDatabase::Get().pool()), issues_(testing::TestDatabase::Get().pool()) {}

  Issue Create(const std::string& title) {
    hotel::v1::CreateIssueRequest request;
    request.set_property_id("BER1");
    request.set_room_number("104");
    request.set_title(title);
    request.set_category(Issue::HVAC);
    request.set_priority(Issue::LOW);
    request.set_reported_by("it-changes");
    Issue out;
    auto status = issues_.Create(*ValidateCreateIssue(request), &out);
    EXPECT_TRUE(status.ok()) << status;
    return out;
  }

  Issue Reprioritise(const Issue& issue, Issue::Priority priority) {
    Issue patch, out;
    patch.set_priority(priority);
    auto status = issues_.Update(issue.id(), patch, {"priority"}, "", &out);
    EXPECT_TRUE(status.ok()) << status;
    return out;
  }

  int64_t Head() {
    EXPECT_TRUE(log_.Sequence().ok());
    return *log_.Head();
  }

  // Every change after `after` up to the head, paging like a client.
  std::vector<ChangeRecord> ReadAll(int64_t after, hotel::v1::ChangeView view = hotel::v1::CHANGE_VIEW_BASIC) {
    std::vector<ChangeRecord> all;
    while (true) {
      auto page = log_.Read(after, kEnd, ChangeFilter{}, 500, view);
      EXPECT_TRUE(page.ok()) << page.status();
      if (!page.ok() || page->changes.empty()) return all;
      after = page->changes.back().seq;
      all.insert(all.end(), page->changes.begin(), page->changes.end());
    }
  }

  ChangeRepository log_;
  IssueRepository issues_;
};

TEST_F(ChangeLogTest, ConcurrentWritersSequencerAndReaderSkipNothing) {
  const int64_t start = Head();
  constexpr int kWriters = 8, kIssuesEach = 25, kUpdatesEach = 3;
  std::map<std::string, std::vector<std::string>> acked;  // issue id -> etags, in order
  absl::Mutex mu;
  std::atomic<bool> writing{true}, reading{true};
  // A reader paging while the writers and the sequencer run: it must see every change once.
  std::vector<ChangeRecord> read;
  std::thread sequencer([&] {
    while (writing.load()) ASSERT_TRUE(log_.Sequence().ok());
  });
  std::thread reader([&] {
    int64_t after = start;
    while (true) {
      const bool last_round = !reading.load();
      auto page = log_.Read(after, kEnd, ChangeFilter{}, 200, hotel::v1::CHANGE_VIEW_BASIC);
      ASSERT_TRUE(page.ok()) << page.status();
      for (const auto& change : page->changes) read.push_back(change);
      if (!page->changes.empty()) after = page->changes.back().seq;
      if (last_round && page->changes.empty()) return;
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int n = 0; n < kIssuesEach; ++n) {
        Issue issue = Create(absl::StrCat("change log ", w, "/", n));
        std::vector<std::string> etags = {issue.etag()};
        for (int u = 0; u < kUpdatesEach; ++u) {
          issue = Reprioritise(issue, static_cast<Issue::Priority>(2 + u));
          etags.push_back(issue.etag());
        }
        absl::MutexLock lock(&mu);
        acked[issue.id()] = etags;
      }
    });
  }
  for (auto& t : writers) t.join();
  writing = false;
  sequencer.join();
  // The last run may have started before the last write committed (and a run that finds the
  // lock taken does nothing): one more, alone, then the reader finishes.
  ASSERT_TRUE(log_.Sequence().ok());
  reading = false;
  reader.join();

  ASSERT_FALSE(read.empty());
  for (size_t i = 0; i < read.size(); ++i) {
    ASSERT_EQ(read[i].seq, start + 1 + static_cast<int64_t>(i)) << "a gap or a duplicate at " << i;
  }
  std::map<std::string, std::vector<std::string>> seen;
  for (const auto& change : read) {
    if (change.resource_type == "ISSUE") seen[change.resource_id].push_back(ChangeEtag(change));
  }
  ASSERT_EQ(acked.size(), static_cast<size_t>(kWriters * kIssuesEach));
  for (const auto& [id, etags] : acked) EXPECT_EQ(seen[id], etags) << id;
  EXPECT_EQ(ReadAll(start).size(), read.size());
}

TEST_F(ChangeLogTest, ATransactionInFlightIsNeitherReadNorSkipped) {
  Issue early = Create("in flight");
  const int64_t start = Head();
  // Staged first (lower staging id), committed last.
  auto& db = testing::TestDatabase::Get();
  pqxx::connection in_flight(db.owner_url());
  pqxx::work txn(in_flight);
  txn.exec_params("UPDATE issues SET title = 'in flight, renamed', version = version + 1 WHERE id = $1::uuid",
                  early.id());
  Issue later = Create("committed meanwhile");
  ASSERT_TRUE(log_.Sequence().ok());
  auto before_commit = ReadAll(start);
  ASSERT_EQ(before_commit.size(), 1u);
  EXPECT_EQ(before_commit[0].resource_id, later.id());
  txn.commit();
  ASSERT_TRUE(log_.Sequence().ok());
  auto after_commit = ReadAll(before_commit[0].seq);
  ASSERT_EQ(after_commit.size(), 1u);
  EXPECT_EQ(after_commit[0].resource_id, early.id());
  EXPECT_EQ(after_commit[0].changed_fields, (std::vector<std::string>{"title", "timeline"}));
  EXPECT_EQ(after_commit[0].seq, before_commit[0].seq + 1);
}

TEST_F(ChangeLogTest, AnUpdateRecordsItsChangedFieldsValuesBefore) {
  // Migration 0021: the trigger keeps the old values of the changed fields, whichever sequencer
  // (0013's, which earlier releases call, or 0019's) moves them into the log.
  const int64_t start = Head();
  Issue issue = Create("previous values");
  issue = Reprioritise(issue, Issue::HIGH);
  ASSERT_TRUE(log_.Sequence().ok());
  Reprioritise(issue, Issue::URGENT);
  auto& db = testing::TestDatabase::Get();
  pqxx::connection owner(db.owner_url());
  pqxx::nontransaction(owner).exec("SELECT sequence_changes()");
  std::vector<ChangeRecord> mine;
  for (auto& change : ReadAll(start, hotel::v1::CHANGE_VIEW_DIFF)) {
    if (change.resource_id == issue.id()) mine.push_back(change);
  }
  ASSERT_EQ(mine.size(), 3u);
  EXPECT_EQ(mine[0].kind, "CREATED");
  EXPECT_EQ(mine[0].previous_json, "");
  std::vector<hotel::v1::Change> diffs(3), full(3);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(ToChangeProto(mine[i], hotel::v1::CHANGE_VIEW_DIFF, &diffs[i]).ok());
    ASSERT_TRUE(ToChangeProto(mine[i], hotel::v1::CHANGE_VIEW_FULL, &full[i]).ok());
  }
  for (int i : {1, 2}) {
    // A priority sets resolve_by too; the timeline is no stored field.
    EXPECT_EQ(mine[i].changed_fields, (std::vector<std::string>{"priority", "resolve_by", "timeline"}));
    // Before: what the change before stored; after: what this one did; nothing else.
    const auto& before = diffs[i].previous().fields();
    const auto& after = diffs[i].resource().fields();
    ASSERT_EQ(before.size(), 2u) << mine[i].previous_json;
    ASSERT_EQ(after.size(), 2u);
    for (const std::string field : {"priority", "resolve_by"}) {
      EXPECT_EQ(before.at(field).string_value(), full[i - 1].resource().fields().at(field).string_value()) << field;
      EXPECT_EQ(after.at(field).string_value(), full[i].resource().fields().at(field).string_value()) << field;
      EXPECT_NE(before.at(field).string_value(), after.at(field).string_value()) << field;
    }
  }
  // Read in another view, the log brings no previous values.
  for (auto& change : ReadAll(start, hotel::v1::CHANGE_VIEW_FULL)) EXPECT_EQ(change.previous_json, "");
}

TEST_F(ChangeLogTest, ABacklogBeyondOneBatchIsSequencedInOrderOverSeveralCalls) {
  const int64_t start = Head();
  auto& db = testing::TestDatabase::Get();
  // More staged than one call moves (10,000): as after a time with no server sequencing.
  constexpr int kStaged = 10'003;
  db.Exec(absl::StrCat(
      "INSERT INTO change_staging (resource_type, resource_id, property_id, kind, changed_fields, version, actor, "
      "resource) SELECT 'ISSUE', 'backlog-' || n, 'BER1', 'UPDATED', '{title}', 'v' || n, 'it-changes', '{}' "
      "FROM generate_series(1, ",
      kStaged, ") n"));
  auto first = log_.Sequence();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->moved, 10'000);
  auto second = log_.Sequence();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->moved, kStaged - 10'000);
  EXPECT_EQ(log_.Sequence()->moved, 0);
  // Every staged change once, in the order staged, at consecutive positions.
  const std::vector<ChangeRecord> read = ReadAll(start);
  ASSERT_EQ(read.size(), static_cast<size_t>(kStaged));
  for (int i = 0; i < kStaged; ++i) {
    EXPECT_EQ(read[i].seq, start + 1 + i);
    ASSERT_EQ(read[i].resource_id, absl::StrCat("backlog-", i + 1));
  }
}

TEST_F(ChangeLogTest, PrunedCursorsExpire) {
  Create("to be pruned");
  const int64_t head = Head();
  auto& db = testing::TestDatabase::Get();
  db.Exec(absl::StrCat("UPDATE change_log SET committed_at = committed_at - interval '8 days' WHERE seq <= ", head));
  while (true) {
    auto pruned = log_.Prune(absl::Hours(24 * 7), 1000);
    ASSERT_TRUE(pruned.ok()) << pruned.status();
    if (*pruned == 0) break;
  }
  hotel::v1::ListChangesResponse out;
  ChangeQuery query;
  query.after = head - 1;
  query.page_size = 10;
  const absl::Status expired = log_.List(query, &out);
  EXPECT_EQ(ErrorReason(expired), "CURSOR_EXPIRED") << expired;
  query.after = head;
  ASSERT_TRUE(log_.List(query, &out).ok());
  EXPECT_EQ(out.next_cursor(), EncodeChangeCursor(head));
  query.after.reset();  // from the oldest kept
  EXPECT_TRUE(log_.List(query, &out).ok());
}

TEST_F(ChangeLogTest, CursorsTheLogNeverHandedOutExpire) {
  Create("before the restore point");
  const int64_t restored_head = Head();
  hotel::v1::ListChangesResponse out;
  ChangeQuery query;
  query.page_size = 10;
  // A consumer's cursor from the timeline a restore to an earlier point threw away.
  query.after = restored_head + 1;
  EXPECT_EQ(ErrorReason(log_.List(query, &out)), "CURSOR_EXPIRED");
  // What scripts/restore.sh does next (scripts/change-log-after-restore.sql): new changes are
  // numbered past every lost cursor, which stay refused once the log grows past them.
  testing::TestDatabase::Get().Exec("UPDATE change_log_state SET value = value + 1000000000000 WHERE name = 'head'");
  const int64_t jumped = Head();
  ChangeQuery at_jump = query;
  at_jump.after = jumped;  // handed out as next_cursor before any change follows it
  ASSERT_TRUE(log_.List(at_jump, &out).ok());
  Issue after_restore = Create("after the restore");
  Head();
  EXPECT_EQ(ErrorReason(log_.List(query, &out)), "CURSOR_EXPIRED");
  query.after = jumped - 1;
  EXPECT_EQ(ErrorReason(log_.List(query, &out)), "CURSOR_EXPIRED");
  out.Clear();
  ASSERT_TRUE(log_.List(at_jump, &out).ok());  // still good once the first new change took jumped + 1
  ASSERT_EQ(out.data_size(), 1);
  EXPECT_EQ(out.data(0).resource_id(), after_restore.id());
  query.after = restored_head;  // the restored data's own cursor continues
  out.Clear();
  ASSERT_TRUE(log_.List(query, &out).ok());
  ASSERT_EQ(out.data_size(), 1);
  EXPECT_EQ(out.data(0).resource_id(), after_restore.id());
}

TEST_F(ChangeLogTest, HubCutsOffAWatcherBeyondItsBufferAndLimitsWatchers) {
  ChangeHubOptions options;
  options.watcher_buffer = 5;
  options.max_watchers = 2;
  ChangeHub hub(log_, options);
  ASSERT_TRUE(hub.PollOnce().ok());  // learns the head
  std::atomic<int> slow_notified = 0, keeping_up_notified = 0;
  auto slow = hub.Subscribe({}, "it", nullptr, [&] { ++slow_notified; });
  auto keeping_up = hub.Subscribe({{"ISSUE"}, "BER1"}, "it", nullptr, [&] { ++keeping_up_notified; });
  ASSERT_TRUE(slow.ok() && keeping_up.ok());
  auto third = hub.Subscribe({}, "it", nullptr, nullptr);
  EXPECT_EQ(ErrorReason(third.status()), "WATCHER_LIMIT");

  std::vector<SharedChange> received;
  int64_t scanned = 0;
  bool heartbeat = false;
  for (int i = 0; i < 3; ++i) {
    Create(absl::StrCat("hub ", i));
    ASSERT_TRUE(hub.PollOnce().ok());
    EXPECT_EQ(keeping_up_notified.load(), i + 1);  // told once per poll that brought it changes
    std::vector<SharedChange> batch;
    ASSERT_TRUE((*keeping_up)->Take(&batch, &scanned, &heartbeat).ok());
    EXPECT_FALSE(heartbeat);
    received.insert(received.end(), batch.begin(), batch.end());
  }
  for (int i = 0; i < 4; ++i) Create(absl::StrCat("hub more ", i));
  ASSERT_TRUE(hub.PollOnce().ok());
  EXPECT_EQ(slow_notified.load(), 4);  // three polls with changes, then its cut-off
  std::vector<SharedChange> batch;
  const absl::Status cut_off = (*slow)->Take(&batch, &scanned, &heartbeat);
  EXPECT_EQ(ErrorReason(cut_off), "WATCHER_TOO_SLOW") << cut_off;
  ASSERT_TRUE((*keeping_up)->Take(&batch, &scanned, &heartbeat).ok());
  received.insert(received.end(), batch.begin(), batch.end());
  EXPECT_EQ(received.size(), 7u);
  EXPECT_EQ(scanned, *hub.position());
  // A slow watcher keeps its place until it has seen the verdict and left.
  EXPECT_EQ(ErrorReason(hub.Subscribe({}, "it", nullptr, nullptr).status()), "WATCHER_LIMIT");
  hub.Unsubscribe(*slow);
  EXPECT_TRUE(hub.Subscribe({}, "it", nullptr, nullptr).ok());
  const int before_stop = keeping_up_notified.load();
  hub.Stop();
  EXPECT_EQ(keeping_up_notified.load(), before_stop + 1);  // told of its end
  EXPECT_EQ(ErrorReason((*keeping_up)->Take(&batch, &scanned, &heartbeat)), "SHUTTING_DOWN");
}

TEST_F(ChangeLogTest, HubReadsWhatAnotherServerSequencedAndSamplesEveryPoll) {
  std::vector<std::pair<int64_t, uint64_t>> samples;
  ChangeHubOptions options;
  options.polled = [&](int64_t head, uint64_t wal) { samples.emplace_back(head, wal); };
  ChangeHub hub(log_, options);
  ASSERT_TRUE(hub.PollOnce().ok());  // learns the head
  std::vector<SharedChange> received;
  auto watcher = hub.Subscribe({{"ISSUE"}, "BER1"}, "it", nullptr, [] {});
  ASSERT_TRUE(watcher.ok());
  EXPECT_FALSE(*hub.PollOnce());  // idle: nothing staged, the head where it was
  // Another server's sequencer moves the change: this hub's own run moves nothing, yet it reads.
  const Issue issue = Create("sequenced elsewhere");
  ASSERT_EQ(log_.Sequence()->moved, 1);
  auto found = hub.PollOnce();
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_TRUE(*found);
  int64_t scanned = 0;
  bool heartbeat = false;
  ASSERT_TRUE((*watcher)->Take(&received, &scanned, &heartbeat).ok());
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0]->seq, *hub.position());
  // A sample per poll, idle or not: the head it read, and WAL positions that never go back.
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples[2].first, *hub.position());
  EXPECT_EQ(samples[1].first, samples[0].first);
  EXPECT_LT(samples[1].first, samples[2].first);
  EXPECT_LE(samples[0].second, samples[1].second);
  EXPECT_LT(samples[1].second, samples[2].second);  // the write's commit lies between them
  hub.Unsubscribe(*watcher);
}

TEST_F(ChangeLogTest, OneClientCannotTakeEveryWatcher) {
  ChangeHubOptions options;
  options.max_watchers = 4;
  options.max_watchers_per_client = 2;
  ChangeHub hub(log_, options);
  ASSERT_TRUE(hub.PollOnce().ok());
  auto first = hub.Subscribe({}, "ip:10.0.0.7", nullptr, nullptr);
  auto second = hub.Subscribe({}, "ip:10.0.0.7", nullptr, nullptr);
  ASSERT_TRUE(first.ok() && second.ok());
  const absl::Status refused = hub.Subscribe({}, "ip:10.0.0.7", nullptr, nullptr).status();
  EXPECT_EQ(ErrorReason(refused), "WATCHER_LIMIT");
  EXPECT_NE(refused.message().find("CHANGE_MAX_WATCHERS_PER_CLIENT"), std::string::npos) << refused;
  EXPECT_TRUE(hub.Subscribe({}, "ip:10.0.0.8", nullptr, nullptr).ok());  // another client still gets one
  hub.Unsubscribe(*first);
  EXPECT_TRUE(hub.Subscribe({}, "ip:10.0.0.7", nullptr, nullptr).ok());  // its place back once it left
}

TEST_F(ChangeLogTest, HubTellsAnIdleWatcherWhenAHeartbeatIsDueAndNeverAfterItUnsubscribed) {
  ChangeHubOptions options;
  options.heartbeat_interval = absl::Milliseconds(150);
  options.poll_interval = absl::Milliseconds(5);
  ChangeHub hub(log_, options, [] { return true; });
  hub.Start();
  ASSERT_TRUE(testing::Eventually([&] { return hub.position().has_value(); }));
  std::atomic<int> notified = 0, witness_notified = 0;
  auto idle = hub.Subscribe({{"ISSUE"}, "NOWHERE"}, "it", nullptr, [&] { ++notified; });
  ASSERT_TRUE(idle.ok());
  // A second idle watcher that stays subscribed: its heartbeats show the hub's clock moving on.
  auto witness = hub.Subscribe({{"ISSUE"}, "NOWHERE"}, "it", nullptr, [&] { ++witness_notified; });
  ASSERT_TRUE(witness.ok());
  ASSERT_TRUE(testing::Eventually([&] { return notified.load() >= 1; }));
  std::vector<SharedChange> batch;
  int64_t scanned = 0;
  bool heartbeat = false;
  ASSERT_TRUE((*idle)->Take(&batch, &scanned, &heartbeat).ok());
  EXPECT_TRUE(heartbeat);
  EXPECT_TRUE(batch.empty());
  hub.Unsubscribe(*idle);
  const int after = notified.load();
  // Two more heartbeats of the witness: the unsubscribed watcher, due at the same times, would
  // have been told of one by now.
  const int witness_after = witness_notified.load();
  ASSERT_TRUE(testing::Eventually([&] { return witness_notified.load() >= witness_after + 2; }));
  EXPECT_EQ(notified.load(), after);
  hub.Unsubscribe(*witness);
  hub.Stop();
}

}  // namespace
}  // namespace hotel
