// Issues against a real PostgreSQL: timeline in the same transaction as the change, etag races,
// idempotent creates (also concurrent), rooms taken out of order and returned.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/errors.h"
#include "equipment/equipment_repository.h"
#include "issues/issue_repository.h"
#include "rooms/room_repository.h"
#include "schedules/schedule_repository.h"
#include "stats/stats_repository.h"
#include "test_database.h"

namespace hotel {
namespace {

// The maintenance areas these tests drive together.
using namespace hotel::equipment;
using namespace hotel::issues;
using namespace hotel::schedules;
using namespace hotel::stats;

using namespace hotel::v1;

std::string Scalar(const std::string& sql) {
  std::string value;
  auto status = testing::TestDatabase::Get().pool().Run(db::Access::kRead, [&](db::Session& s) {
    pqxx::nontransaction txn(s.connection());
    auto row = txn.exec1(sql);
    value = row[0].is_null() ? "" : row[0].c_str();
    return absl::OkStatus();
  });
  EXPECT_TRUE(status.ok()) << status;
  return value;
}

// A request id unique to this call, so the tests can be repeated on one database.
std::string RunId(const std::string& prefix) { return absl::StrCat(prefix, "-", absl::ToUnixNanos(absl::Now())); }

class IssueRepositoryTest : public ::testing::Test {
 protected:
  IssueRepositoryTest() : repository_(testing::TestDatabase::Get().pool()) {}

  Issue Create(const std::string& room, const std::string& title, bool take_room = false,
               const std::string& request_id = "") {
    CreateIssueRequest request;
    request.set_property_id("BER1");
    request.set_room_number(room);
    request.set_title(title);
    request.set_category(Issue::PLUMBING);
    request.set_priority(Issue::HIGH);
    request.set_reported_by("it-test");
    request.set_take_room_out_of_order(take_room);
    request.set_request_id(request_id);
    auto in = ValidateCreateIssue(request);
    EXPECT_TRUE(in.ok()) << in.status();
    Issue out;
    absl::Status status = repository_.Create(*in, &out);
    EXPECT_TRUE(status.ok()) << status;
    return out;
  }

  absl::Status Patch(const Issue& current, Issue patch, std::vector<std::string> mask, Issue* out,
                     const std::string& if_match = "") {
    return repository_.Update(current.id(), patch, mask, if_match, out);
  }

  Issue Status(const Issue& current, Issue::Status status, const std::string& reason = "") {
    Issue patch, out;
    patch.set_status(status);
    patch.set_reason(reason);
    absl::Status s = Patch(current, patch, {"status", "reason"}, &out);
    EXPECT_TRUE(s.ok()) << s;
    return out;
  }

  Room GetRoom(const std::string& number) {
    rooms::RoomRepository rooms(testing::TestDatabase::Get().pool());
    Room room;
    EXPECT_TRUE(rooms.GetRoom("BER1", number, &room).ok());
    return room;
  }

  IssueRepository repository_;
};

TEST_F(IssueRepositoryTest, CreateReturnsTheIssueWithItsFirstTimelineEntry) {
  Issue issue = Create("102", "Dripping shower head");
  EXPECT_EQ(issue.status(), Issue::OPEN);
  EXPECT_EQ(issue.priority(), Issue::HIGH);
  EXPECT_EQ(issue.allowed_transitions_size(), 4);
  EXPECT_FALSE(issue.etag().empty());
  EXPECT_EQ(issue.resolve_by().seconds() - issue.created_at().seconds(), 24 * 3600);
  EXPECT_FALSE(issue.overdue());
  ASSERT_EQ(issue.timeline_size(), 1);
  EXPECT_EQ(issue.timeline(0).type(), IssueEvent::CREATED);
  EXPECT_EQ(issue.timeline(0).actor(), "it-test");
  EXPECT_EQ(issue.timeline(0).to(), "OPEN");

  Issue fetched;
  ASSERT_TRUE(repository_.Get(issue.id(), &fetched).ok());
  EXPECT_EQ(fetched.title(), "Dripping shower head");
  EXPECT_EQ(fetched.etag(), issue.etag());
  EXPECT_EQ(ErrorReason(repository_.Get("00000000-0000-4000-8000-000000000000", &fetched)), "ISSUE_NOT_FOUND");
}

TEST_F(IssueRepositoryTest, BatchGetAnswersInTheOrderAskedAndNamesTheMissing) {
  const Issue first = Create("103", "Batch one");
  const Issue second = Create("103", "Batch two");
  BatchGetIssuesResponse response;
  ASSERT_TRUE(repository_.BatchGet({second.id(), first.id()}, &response).ok());
  ASSERT_EQ(response.issues_size(), 2);
  EXPECT_EQ(response.issues(0).title(), "Batch two");
  EXPECT_EQ(response.issues(1).etag(), first.etag());
  EXPECT_EQ(response.issues(1).timeline_size(), 0);  // as lists show issues
  const std::string unknown = "00000000-0000-4000-8000-000000000000";
  absl::Status missing = repository_.BatchGet({first.id(), unknown}, &response);
  EXPECT_EQ(ErrorReason(missing), "ISSUE_NOT_FOUND");
  EXPECT_EQ(missing.message(), absl::StrCat("issue ", unknown, " does not exist"));
}

TEST_F(IssueRepositoryTest, UnknownReferencesAreNotFound) {
  CreateIssueRequest request;
  request.set_property_id("BER1");
  request.set_room_number("999");
  request.set_title("x");
  request.set_category(Issue::OTHER);
  request.set_reported_by("it");
  Issue out;
  EXPECT_EQ(ErrorReason(repository_.Create(*ValidateCreateIssue(request), &out)), "ROOM_NOT_FOUND");
  request.set_property_id("NOPE1");
  EXPECT_EQ(ErrorReason(repository_.Create(*ValidateCreateIssue(request), &out)), "PROPERTY_NOT_FOUND");
  request.set_property_id("BER1");
  request.set_room_number("101");
  request.set_equipment_id("00000000-0000-4000-8000-000000000000");
  EXPECT_EQ(ErrorReason(repository_.Create(*ValidateCreateIssue(request), &out)), "EQUIPMENT_NOT_FOUND");
  // Equipment of another room is not this room's equipment.
  request.set_equipment_id(
      Scalar("SELECT id::text FROM equipment WHERE property_id = 'BER1' AND room_number = '102' "
             "LIMIT 1"));
  EXPECT_EQ(ErrorReason(repository_.Create(*ValidateCreateIssue(request), &out)), "EQUIPMENT_NOT_FOUND");
}

TEST_F(IssueRepositoryTest, EveryChangeWritesItsTimelineEntriesInTheSameTransaction) {
  Issue issue = Create("103", "Broken lamp");
  Issue patch, updated;
  patch.set_status(Issue::IN_PROGRESS);
  patch.set_assignee("Jonas");
  patch.set_comment("On my way");
  patch.set_updated_by("Jonas");
  ASSERT_TRUE(Patch(issue, patch, {"status", "assignee", "comment", "updated_by"}, &updated).ok());
  ASSERT_EQ(updated.timeline_size(), 4);
  EXPECT_EQ(updated.timeline(1).type(), IssueEvent::STATUS_CHANGED);
  EXPECT_EQ(updated.timeline(2).type(), IssueEvent::ASSIGNEE_CHANGED);
  EXPECT_EQ(updated.timeline(3).type(), IssueEvent::COMMENT);
  EXPECT_EQ(updated.timeline(3).actor(), "Jonas");
  EXPECT_TRUE(updated.has_first_response_at());
  EXPECT_NE(updated.etag(), issue.etag());
  // One transaction: the change and its entries carry the same transaction time.
  EXPECT_EQ(Scalar(absl::StrCat("SELECT count(*) FROM issue_events e JOIN issues i ON i.id = e.issue_id WHERE i.id = '",
                                issue.id(), "' AND e.at = i.updated_at")),
            "3");

  // When writing a timeline entry fails, the change is rolled back with it.
  auto& db = testing::TestDatabase::Get();
  db.Exec(
      "CREATE OR REPLACE FUNCTION it_refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
      "IF NEW.note = 'refuse me' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$; "
      "CREATE TRIGGER it_refuse_event BEFORE INSERT ON issue_events FOR EACH ROW EXECUTE FUNCTION it_refuse_event()");
  Issue failing, ignored;
  failing.set_title("Changed title");
  failing.set_comment("refuse me");
  absl::Status status = Patch(updated, failing, {"title", "comment"}, &ignored);
  db.Exec("DROP TRIGGER it_refuse_event ON issue_events; DROP FUNCTION it_refuse_event()");
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  Issue after;
  ASSERT_TRUE(repository_.Get(issue.id(), &after).ok());
  EXPECT_EQ(after.title(), "Broken lamp");
  EXPECT_EQ(after.etag(), updated.etag());
  EXPECT_EQ(after.timeline_size(), 4);
}

TEST_F(IssueRepositoryTest, InvalidTransitionsAndStaleEtagsChangeNothing) {
  Issue issue = Create("104", "Loose handle");
  Issue patch, out;
  patch.set_status(Issue::CLOSED);
  EXPECT_EQ(ErrorReason(Patch(issue, patch, {"status"}, &out)), "INVALID_TRANSITION");
  Issue started = Status(issue, Issue::IN_PROGRESS);
  Issue stale;
  stale.set_title("Should not be merged");
  stale.set_etag(issue.etag());
  EXPECT_EQ(ErrorReason(Patch(issue, stale, {"title", "etag"}, &out)), "ETAG_MISMATCH");
  stale.clear_etag();
  EXPECT_EQ(ErrorReason(Patch(issue, stale, {"title"}, &out, "\"" + issue.etag() + "\"")), "ETAG_MISMATCH");
  ASSERT_TRUE(Patch(issue, stale, {"title"}, &out, started.etag()).ok());
  EXPECT_EQ(out.title(), "Should not be merged");
  Issue after;
  ASSERT_TRUE(repository_.Get(issue.id(), &after).ok());
  EXPECT_EQ(after.timeline_size(), 3);  // created, status, title
}

TEST_F(IssueRepositoryTest, ConcurrentPatchesWithTheSameEtagHaveOneWinner) {
  Issue issue = Create("105", "Race me");
  constexpr int kClients = 8;
  std::vector<absl::Status> results(kClients);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      Issue patch, out;
      patch.set_title(absl::StrCat("Title from client ", i));
      patch.set_etag(issue.etag());
      results[i] = repository_.Update(issue.id(), patch, {"title", "etag"}, "", &out);
    });
  }
  for (auto& t : clients) t.join();
  int ok = 0, mismatched = 0;
  for (const auto& r : results) {
    if (r.ok()) ++ok;
    if (ErrorReason(r) == "ETAG_MISMATCH") ++mismatched;
  }
  EXPECT_EQ(ok, 1);
  EXPECT_EQ(mismatched, kClients - 1);
  EXPECT_EQ(Scalar(absl::StrCat("SELECT version FROM issues WHERE id = '", issue.id(), "'")), "2");
  EXPECT_EQ(
      Scalar(absl::StrCat("SELECT count(*) FROM issue_events WHERE issue_id = '", issue.id(), "' AND field = 'title'")),
      "1");
}

TEST_F(IssueRepositoryTest, RetriesWithTheSameRequestIdReturnTheFirstIssue) {
  const std::string request_id = RunId("it-issue-retry");
  Issue first = Create("106", "Idempotent", false, request_id);
  Issue again = Create("106", "Idempotent", false, request_id);
  EXPECT_EQ(again.id(), first.id());
  EXPECT_EQ(again.timeline_size(), 1);
  // Same id, other request: refused.
  CreateIssueRequest other;
  other.set_property_id("BER1");
  other.set_room_number("106");
  other.set_title("Something else");
  other.set_category(Issue::OTHER);
  other.set_reported_by("it-test");
  other.set_request_id(request_id);
  Issue out;
  absl::Status status = repository_.Create(*ValidateCreateIssue(other), &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ErrorReason(status), "REQUEST_ID_REUSED");
}

TEST_F(IssueRepositoryTest, ConcurrentDuplicatesCreateOneIssue) {
  const std::string request_id = RunId("it-issue-concurrent");
  constexpr int kClients = 8;
  std::vector<std::string> ids(kClients);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] { ids[i] = Create("107", "Concurrent create", true, request_id).id(); });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 1u);
  EXPECT_FALSE(ids[0].empty());
  EXPECT_EQ(Scalar(absl::StrCat("SELECT count(*) FROM issues WHERE request_id = '", request_id, "'")), "1");
  EXPECT_EQ(Scalar(absl::StrCat("SELECT count(*) FROM issue_events WHERE issue_id = '", ids[0], "'")), "2");
  Issue issue;
  ASSERT_TRUE(repository_.Get(ids[0], &issue).ok());
  Status(issue, Issue::CANCELLED, "duplicate test issue");  // give the room back
  EXPECT_TRUE(GetRoom("107").available());
}

TEST_F(IssueRepositoryTest, AnIssueTakesItsRoomOutOfOrderUntilTheLastHolderIsDone) {
  Issue leak = Create("109", "Leak", true);
  Room room = GetRoom("109");
  EXPECT_FALSE(room.available());
  EXPECT_EQ(room.out_of_order_reason(), "Maintenance issue: Leak");
  ASSERT_EQ(leak.timeline_size(), 2);
  EXPECT_EQ(leak.timeline(1).type(), IssueEvent::ROOM_OUT_OF_ORDER);

  // A second issue holds the room too; resolving the first keeps the room out of order.
  Issue mould = Create("109", "Mould", false);
  Issue take;
  take.set_take_room_out_of_order(true);
  Issue held;
  ASSERT_TRUE(Patch(mould, take, {"take_room_out_of_order"}, &held).ok());
  EXPECT_TRUE(held.take_room_out_of_order());

  Issue resolved = Status(Status(leak, Issue::IN_PROGRESS), Issue::RESOLVED);
  EXPECT_FALSE(resolved.take_room_out_of_order());
  EXPECT_TRUE(resolved.has_resolved_at());
  EXPECT_EQ(resolved.timeline(resolved.timeline_size() - 1).type(), IssueEvent::ROOM_BACK_IN_SERVICE);
  EXPECT_NE(resolved.timeline(resolved.timeline_size() - 1).note().find(mould.id()), std::string::npos);
  // The reason names the issue that still holds the room, not the resolved one.
  room = GetRoom("109");
  EXPECT_FALSE(room.available());
  EXPECT_EQ(room.out_of_order_reason(), "Maintenance issue: Mould");

  // Cancelling the last holder returns the room.
  Issue cancelled = Status(held, Issue::CANCELLED, "fixed with the leak");
  EXPECT_NE(cancelled.timeline(cancelled.timeline_size() - 1).note().find("returned to service"), std::string::npos);
  room = GetRoom("109");
  EXPECT_TRUE(room.available());
  EXPECT_EQ(room.out_of_order_reason(), "");
  EXPECT_FALSE(room.has_out_of_order_since());

  // Reopening does not take the room again by itself; the reopened issue has no resolved_at.
  Issue reopened = Status(resolved, Issue::IN_PROGRESS);
  EXPECT_FALSE(reopened.has_resolved_at());
  EXPECT_TRUE(GetRoom("109").available());
  Status(reopened, Issue::RESOLVED);
}

TEST_F(IssueRepositoryTest, ACreateAbortedAsADeadlockVictimIsRetriedAndStoredOnce) {
  // A trigger makes PostgreSQL abort the first two attempts of this create with 40P01; the
  // sequence counts attempts outside the transactions that are rolled back.
  auto& db = testing::TestDatabase::Get();
  db.Exec(
      "DROP SEQUENCE IF EXISTS forced_conflicts; CREATE SEQUENCE forced_conflicts;"
      "CREATE OR REPLACE FUNCTION force_conflict() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
      " IF NEW.title LIKE 'Forced deadlock%' AND nextval('forced_conflicts') <= 2 THEN"
      " RAISE EXCEPTION 'forced deadlock' USING ERRCODE = '40P01'; END IF; RETURN NEW; END $$;"
      "DROP TRIGGER IF EXISTS force_conflict ON issues;"
      "CREATE TRIGGER force_conflict BEFORE INSERT ON issues FOR EACH ROW EXECUTE FUNCTION force_conflict()");
  struct DropTrigger {
    ~DropTrigger() { testing::TestDatabase::Get().Exec("DROP TRIGGER force_conflict ON issues"); }
  } drop_trigger;
  const std::string title = RunId("Forced deadlock");
  Issue created = Create("110", title, true);
  EXPECT_EQ(created.title(), title);
  ASSERT_EQ(created.timeline_size(), 2);
  EXPECT_EQ(created.timeline(0).type(), IssueEvent::CREATED);
  EXPECT_EQ(Scalar("SELECT last_value FROM forced_conflicts"), "3");
  EXPECT_EQ(Scalar(absl::StrCat("SELECT count(*) FROM issues WHERE title = '", title, "'")), "1");
  EXPECT_EQ(Scalar(absl::StrCat("SELECT count(*) FROM issue_events WHERE issue_id = '", created.id(), "'")), "2");

  // Conflicting on every attempt: ABORTED with a reason, and nothing stored.
  db.Exec("ALTER SEQUENCE forced_conflicts MINVALUE -1000 RESTART WITH -1000");
  CreateIssueRequest request;
  request.set_property_id("BER1");
  request.set_room_number("110");
  request.set_title(RunId("Forced deadlock"));
  request.set_category(Issue::PLUMBING);
  request.set_priority(Issue::HIGH);
  request.set_reported_by("it-test");
  Issue out;
  absl::Status status = repository_.Create(*ValidateCreateIssue(request), &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(ErrorReason(status), "CONCURRENT_UPDATE");
  EXPECT_EQ(Scalar(absl::StrCat("SELECT count(*) FROM issues WHERE title = '", request.title(), "'")), "0");
  Status(created, Issue::CANCELLED, "test done");
}

TEST_F(IssueRepositoryTest, ListsAreNewestFirstAndPaged) {
  std::vector<std::string> created;
  for (int i = 0; i < 5; ++i) created.push_back(Create("110", absl::StrCat("Paged ", i)).id());
  ListIssuesRequest request;
  request.set_property_id("BER1");
  request.set_room_number("110");
  request.set_page_size(2);
  std::vector<std::string> seen;
  for (int pages = 0; pages < 10; ++pages) {
    auto query = ParseListIssues(request);
    ASSERT_TRUE(query.ok()) << query.status();
    ListIssuesResponse page;
    ASSERT_TRUE(repository_.List(*query, &page).ok());
    for (const auto& issue : page.data()) {
      seen.push_back(issue.id());
      EXPECT_EQ(issue.timeline_size(), 0);
    }
    if (page.next_page_token().empty()) break;
    request.set_page_token(page.next_page_token());
  }
  // Seeded issues of room 110 come after (they are older).
  ASSERT_GE(seen.size(), 5u);
  EXPECT_EQ(std::vector<std::string>(seen.begin(), seen.begin() + 5),
            std::vector<std::string>(created.rbegin(), created.rend()));
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), seen.size());

  ListIssuesRequest unknown;
  unknown.set_property_id("NOPE1");
  ListIssuesResponse empty;
  EXPECT_EQ(ErrorReason(repository_.List(*ParseListIssues(unknown), &empty)), "PROPERTY_NOT_FOUND");
}

}  // namespace
}  // namespace hotel
