// Room blocks against a real PostgreSQL: the overlap rule held by the database under 16
// concurrent creators, all-or-nothing batches, retired rooms, etag-checked updates and cancels,
// and the availability counts against a recount.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "blocks/block_repository.h"
#include "blocks/block_transitions.h"
#include "common/errors.h"
#include "issues/issue_repository.h"
#include "test_database.h"

namespace hotel {
namespace {

using blocks::RoomBlockRepository;
using blocks::RoomBlockTransitions;
using hotel::v1::RoomBlock;

// A property of its own per test (its id from the clock), so tests repeat on one database:
// rooms 101-104 of type STD and 201 of type SUI, in time zone zone.
std::string MakeProperty(const std::string& zone = "Europe/Berlin") {
  static std::atomic<int> counter{0};
  const std::string id = absl::StrCat("B", absl::ToUnixMicros(absl::Now()) % 100000000, counter++ % 10);
  auto& db = testing::TestDatabase::Get();
  db.Exec(absl::StrCat("INSERT INTO properties (id, name, time_zone, city, country_code) VALUES ('", id,
                       "', 'Blocks', '", zone, "', 'Berlin', 'DE')"));
  for (const std::string code : {"STD", "SUI"}) {
    db.Exec(
        absl::StrCat("INSERT INTO room_types (id, property_id, code, name, category, size_sqm, max_guests, "
                     "bed_type) VALUES ('",
                     id, "-", code, "', '", id, "', '", code, "', '", code, "', 'STANDARD', 20, 2, 'DOUBLE')"));
  }
  for (const std::string number : {"101", "102", "103", "104", "201"}) {
    db.Exec(absl::StrCat("INSERT INTO rooms (property_id, number, floor, room_type_id) VALUES ('", id, "', '", number,
                         "', ", number.substr(0, 1), ", '", id, "-", number[0] == '1' ? "STD" : "SUI", "')"));
  }
  return id;
}

hotel::v1::CreateRoomBlockRequest Request(const std::string& property, const std::string& room,
                                          const std::string& start, const std::string& end,
                                          RoomBlock::Type type = RoomBlock::OUT_OF_ORDER) {
  hotel::v1::CreateRoomBlockRequest request;
  request.set_property_id(property);
  request.set_room_number(room);
  request.set_type(type);
  request.set_start_date(start);
  request.set_end_date(end);
  request.set_reason("Renovation");
  return request;
}

class RoomBlockRepositoryTest : public ::testing::Test {
 protected:
  RoomBlockRepositoryTest() : repository_(testing::TestDatabase::Get().pool()) {}

  absl::Status Create(const hotel::v1::CreateRoomBlockRequest& request, RoomBlock* out) {
    auto block = blocks::ValidateCreateRoomBlock(request);
    if (!block.ok()) return block.status();
    return repository_.Create(*block, out);
  }

  RoomBlock MustCreate(const hotel::v1::CreateRoomBlockRequest& request) {
    RoomBlock out;
    absl::Status status = Create(request, &out);
    EXPECT_TRUE(status.ok()) << status;
    return out;
  }

  int CountBlocks(const std::string& property) {
    return std::stoi(testing::TestDatabase::Get().Scalar(
        absl::StrCat("SELECT count(*) FROM room_blocks WHERE property_id = '", property, "'")));
  }

  RoomBlockRepository repository_;
};

TEST_F(RoomBlockRepositoryTest, CreatesReadsBackListsAndRepeatsARequestId) {
  const std::string property = MakeProperty();
  auto request = Request(property, "101", "2026-12-03", "2026-12-10");
  request.set_request_id(absl::StrCat("rb-", property));
  RoomBlock created = MustCreate(request);
  EXPECT_FALSE(created.cancelled());
  EXPECT_EQ(created.start_date(), "2026-12-03");
  EXPECT_EQ(created.end_date(), "2026-12-10");
  EXPECT_FALSE(created.etag().empty());

  RoomBlock again = MustCreate(request);
  EXPECT_EQ(again.id(), created.id());
  EXPECT_EQ(CountBlocks(property), 1);

  request.set_reason("Another payload");
  RoomBlock refused;
  EXPECT_EQ(ErrorReason(Create(request, &refused)), "REQUEST_ID_REUSED");

  RoomBlock read;
  ASSERT_TRUE(repository_.Get(created.id(), &read).ok());
  EXPECT_EQ(read.SerializeAsString(), created.SerializeAsString());

  MustCreate(Request(property, "102", "2026-11-28", "2026-12-01"));
  MustCreate(Request(property, "103", "2026-12-09", "", RoomBlock::OUT_OF_SERVICE));
  hotel::v1::ListRoomBlocksRequest list;
  list.set_property_id(property);
  list.set_from_date("2026-12-01");
  list.set_to_date("2026-12-10");
  auto query = blocks::ParseListRoomBlocks(list);
  ASSERT_TRUE(query.ok()) << query.status();
  hotel::v1::ListRoomBlocksResponse page;
  ASSERT_TRUE(repository_.List(*query, &page).ok());
  ASSERT_EQ(page.data_size(), 2);  // 102's block ends before the 1st
  EXPECT_EQ(page.data(0).room_number(), "101");
  EXPECT_EQ(page.data(1).room_number(), "103");
  EXPECT_EQ(page.data(1).end_date(), "");
}

TEST_F(RoomBlockRepositoryTest, SixteenConcurrentOverlappingCreatorsHaveExactlyOneWinner) {
  const std::string property = MakeProperty();
  constexpr int kWorkers = 16;
  std::vector<absl::Status> results(kWorkers);
  std::vector<RoomBlock> blocks(kWorkers);
  std::atomic<int> ready{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < kWorkers; ++i) {
    workers.emplace_back([&, i] {
      // Every range contains 2026-12-20, each starts on another day.
      auto request =
          Request(property, "101", absl::StrCat("2026-12-", 10 + i / 2), absl::StrCat("2026-12-", 21 + i / 2));
      auto block = blocks::ValidateCreateRoomBlock(request);
      ready.fetch_add(1);
      while (ready.load() < kWorkers) std::this_thread::yield();
      results[i] = repository_.Create(*block, &blocks[i]);
    });
  }
  for (auto& worker : workers) worker.join();
  int winners = 0;
  std::string winner;
  for (int i = 0; i < kWorkers; ++i) {
    if (results[i].ok()) {
      ++winners;
      winner = blocks[i].id();
    }
  }
  ASSERT_EQ(winners, 1);
  for (const auto& result : results) {
    if (result.ok()) continue;
    EXPECT_EQ(result.code(), absl::StatusCode::kFailedPrecondition) << result;
    EXPECT_EQ(ErrorReason(result), "ROOM_BLOCK_OVERLAP") << result;
    EXPECT_TRUE(absl::StrContains(result.message(), winner)) << result;
  }
  EXPECT_EQ(CountBlocks(property), 1);
}

TEST_F(RoomBlockRepositoryTest, OverlapRuleKeepsOutOfServiceIssueAndCancelledBlocksOut) {
  const std::string property = MakeProperty();
  RoomBlock first = MustCreate(Request(property, "101", "2027-01-01", "2027-01-05"));
  // Touching ranges do not overlap (end is exclusive); OUT_OF_SERVICE never conflicts.
  MustCreate(Request(property, "101", "2027-01-05", "2027-01-07"));
  MustCreate(Request(property, "101", "2027-01-02", "2027-01-03", RoomBlock::OUT_OF_SERVICE));
  RoomBlock out;
  absl::Status refused = Create(Request(property, "101", "2026-12-30", ""), &out);
  EXPECT_EQ(ErrorReason(refused), "ROOM_BLOCK_OVERLAP") << refused;
  EXPECT_TRUE(absl::StrContains(refused.message(), first.id())) << refused;

  RoomBlock cancelled;
  ASSERT_TRUE(repository_.Cancel(first.id(), first.etag(), "", "it-test", &cancelled).ok());
  EXPECT_TRUE(cancelled.cancelled());
  EXPECT_TRUE(cancelled.has_cancelled_at());
  // Cancelling again changes nothing; the freed dates take a new block.
  RoomBlock again;
  ASSERT_TRUE(repository_.Cancel(first.id(), "", "", "it-test", &again).ok());
  EXPECT_EQ(again.etag(), cancelled.etag());
  MustCreate(Request(property, "101", "2027-01-01", "2027-01-05"));
}

TEST_F(RoomBlockRepositoryTest, AFailedBatchCreatesNothing) {
  const std::string property = MakeProperty();
  RoomBlock existing = MustCreate(Request(property, "103", "2027-02-01", "2027-02-10"));
  hotel::v1::BatchCreateRoomBlocksRequest batch;
  *batch.add_requests() = Request(property, "101", "2027-02-01", "2027-02-10");
  *batch.add_requests() = Request(property, "102", "2027-02-01", "2027-02-10");
  *batch.add_requests() = Request(property, "103", "2027-02-09", "2027-02-12");
  auto blocks = blocks::ValidateBatchCreateRoomBlocks(batch);
  ASSERT_TRUE(blocks.ok()) << blocks.status();
  hotel::v1::BatchCreateRoomBlocksResponse response;
  absl::Status refused = repository_.BatchCreate(*blocks, &response);
  EXPECT_EQ(ErrorReason(refused), "ROOM_BLOCK_OVERLAP") << refused;
  EXPECT_TRUE(absl::StartsWith(refused.message(), "requests[2]: ")) << refused;
  EXPECT_TRUE(absl::StrContains(refused.message(), existing.id())) << refused;
  EXPECT_EQ(response.room_blocks_size(), 0);
  EXPECT_EQ(CountBlocks(property), 1);

  // A missing room fails the batch too, naming its item.
  batch.mutable_requests(2)->set_room_number("999");
  blocks = blocks::ValidateBatchCreateRoomBlocks(batch);
  ASSERT_TRUE(blocks.ok());
  refused = repository_.BatchCreate(*blocks, &response);
  EXPECT_EQ(ErrorReason(refused), "ROOM_NOT_FOUND") << refused;
  EXPECT_TRUE(absl::StartsWith(refused.message(), "requests[2]: ")) << refused;
  EXPECT_EQ(CountBlocks(property), 1);

  batch.mutable_requests(2)->set_room_number("104");
  blocks = blocks::ValidateBatchCreateRoomBlocks(batch);
  ASSERT_TRUE(blocks.ok());
  ASSERT_TRUE(repository_.BatchCreate(*blocks, &response).ok());
  ASSERT_EQ(response.room_blocks_size(), 3);
  EXPECT_EQ(response.room_blocks(2).room_number(), "104");
  EXPECT_EQ(CountBlocks(property), 4);
}

TEST_F(RoomBlockRepositoryTest, RetiredRoomsTakeNoNewBlocks) {
  const std::string property = MakeProperty();
  testing::TestDatabase::Get().Exec(
      absl::StrCat("UPDATE rooms SET retired_at = now() WHERE property_id = '", property, "' AND number = '104'"));
  RoomBlock out;
  absl::Status refused = Create(Request(property, "104", "2027-03-01", "2027-03-02"), &out);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_EQ(ErrorReason(refused), "ROOM_RETIRED") << refused;
  EXPECT_EQ(ErrorReason(Create(Request(property, "999", "2027-03-01", "2027-03-02"), &out)), "ROOM_NOT_FOUND");
  EXPECT_EQ(CountBlocks(property), 0);
}

TEST_F(RoomBlockRepositoryTest, UpdatesHonourTheEtagAndTheOverlapRule) {
  const std::string property = MakeProperty();
  RoomBlock first = MustCreate(Request(property, "101", "2027-04-01", "2027-04-05"));
  RoomBlock second = MustCreate(Request(property, "101", "2027-04-10", "2027-04-15"));
  RoomBlock patch, out;
  patch.set_end_date("2027-04-12");
  absl::Status refused = repository_.Update(first.id(), patch, {"end_date"}, "", &out);
  EXPECT_EQ(ErrorReason(refused), "ROOM_BLOCK_OVERLAP") << refused;
  EXPECT_TRUE(absl::StrContains(refused.message(), second.id())) << refused;

  patch.set_end_date("2027-04-08");
  patch.set_reason("Longer works");
  ASSERT_TRUE(repository_.Update(first.id(), patch, {"end_date", "reason"}, first.etag(), &out).ok());
  EXPECT_EQ(out.end_date(), "2027-04-08");
  EXPECT_EQ(out.reason(), "Longer works");
  EXPECT_NE(out.etag(), first.etag());
  // The etag read before that update is stale now.
  patch.set_end_date("2027-04-09");
  EXPECT_EQ(ErrorReason(repository_.Update(first.id(), patch, {"end_date"}, first.etag(), &out)), "ETAG_MISMATCH");
  // An end before the start names end_date; the type cannot change.
  patch.set_end_date("2027-03-30");
  absl::Status bad = repository_.Update(first.id(), patch, {"end_date"}, "", &out);
  EXPECT_EQ(ViolatedFields(bad), std::vector<std::string>{"end_date"}) << bad;
  patch.Clear();
  patch.set_type(RoomBlock::OUT_OF_SERVICE);
  bad = repository_.Update(first.id(), patch, {"type"}, "", &out);
  EXPECT_EQ(ViolatedFields(bad), std::vector<std::string>{"type"}) << bad;
}

TEST_F(RoomBlockRepositoryTest, AvailabilityCountsEqualARecount) {
  const std::string property = MakeProperty("America/New_York");
  // Across a month boundary and the end of daylight saving time in New York (2026-11-01).
  MustCreate(Request(property, "101", "2026-10-30", "2026-11-03"));
  MustCreate(Request(property, "102", "2026-10-31", ""));
  MustCreate(Request(property, "102", "2026-10-25", "2026-11-02", RoomBlock::OUT_OF_SERVICE));
  MustCreate(Request(property, "103", "2026-11-01", "2026-11-02", RoomBlock::OUT_OF_SERVICE));
  MustCreate(Request(property, "201", "2026-10-29", "2026-10-31"));
  RoomBlock cancelled = MustCreate(Request(property, "104", "2026-10-29", "2026-11-05"));
  RoomBlock ignored;
  ASSERT_TRUE(repository_.Cancel(cancelled.id(), "", "", "it-test", &ignored).ok());

  hotel::v1::GetPropertyAvailabilityRequest request;
  request.set_property_id(property);
  request.set_from_date("2026-10-28");
  request.set_to_date("2026-11-04");
  auto query = blocks::ParseGetPropertyAvailability(request);
  ASSERT_TRUE(query.ok());
  hotel::v1::PropertyAvailability availability;
  ASSERT_TRUE(repository_.Availability(*query, &availability).ok());
  EXPECT_EQ(availability.time_zone(), "America/New_York");
  ASSERT_EQ(availability.dates_size(), 7);
  // The recount, by hand: date -> {STD out of order, STD out of service, SUI out of order}.
  const std::map<std::string, std::vector<int>> expected = {
      {"2026-10-28", {0, 1, 0}}, {"2026-10-29", {0, 1, 1}}, {"2026-10-30", {1, 1, 1}}, {"2026-10-31", {2, 0, 0}},
      {"2026-11-01", {2, 1, 0}}, {"2026-11-02", {2, 0, 0}}, {"2026-11-03", {1, 0, 0}}};
  for (const auto& date : availability.dates()) {
    ASSERT_EQ(date.room_types_size(), 2) << date.date();
    const auto& std_rooms = date.room_types(0);
    const auto& suites = date.room_types(1);
    EXPECT_EQ(std_rooms.room_type_id(), property + "-STD");
    EXPECT_EQ(std_rooms.in_inventory(), 4);
    const auto& want = expected.at(date.date());
    EXPECT_EQ(std_rooms.out_of_order(), want[0]) << date.date();
    EXPECT_EQ(std_rooms.out_of_service(), want[1]) << date.date();
    EXPECT_EQ(std_rooms.sellable(), 4 - want[0]) << date.date();
    EXPECT_EQ(suites.out_of_order(), want[2]) << date.date();
    EXPECT_EQ(suites.sellable(), 1 - want[2]) << date.date();
  }
  request.set_property_id("NOPE1");
  query = blocks::ParseGetPropertyAvailability(request);
  ASSERT_TRUE(query.ok());
  EXPECT_EQ(ErrorReason(repository_.Availability(*query, &availability)), "PROPERTY_NOT_FOUND");
}

// The local date of the property's zone, plus days.
std::string LocalDate(const std::string& zone, int days) {
  return testing::TestDatabase::Get().Scalar(
      absl::StrCat("SELECT to_char((now() AT TIME ZONE '", zone, "')::date + ", days, ", 'YYYY-MM-DD')"));
}

std::string RoomState(const std::string& property, const std::string& number) {
  return testing::TestDatabase::Get().Scalar(
      // The room data's version (Room.etag's; 1.5.0, migration 0027: its housekeeping counts apart).
      absl::StrCat("SELECT out_of_order || ' v' || (version - housekeeping_version) || ' ' || out_of_order_reason ",
                   "FROM rooms ", "WHERE property_id = '", property, "' AND number = '", number, "'"));
}

TEST_F(RoomBlockRepositoryTest, ABlockCoveringTodayTakesTheRoomOutOfOrderAtOnce) {
  const std::string property = MakeProperty("Pacific/Auckland");
  const std::string before = RoomState(property, "101");
  EXPECT_TRUE(absl::StartsWith(before, "false v1")) << before;
  RoomBlock b =
      MustCreate(Request(property, "101", LocalDate("Pacific/Auckland", -1), LocalDate("Pacific/Auckland", 1)));
  EXPECT_EQ(RoomState(property, "101"), "true v2 Room block: Renovation");
  // A block that starts tomorrow changes nothing today.
  MustCreate(Request(property, "102", LocalDate("Pacific/Auckland", 1), ""));
  EXPECT_EQ(RoomState(property, "102"), "false v1 ");
  RoomBlock cancelled;
  ASSERT_TRUE(repository_.Cancel(b.id(), "", "", "it-test", &cancelled).ok());
  EXPECT_EQ(RoomState(property, "101"), "false v3 ");
}

TEST_F(RoomBlockRepositoryTest, AnIssueReleasingItsRoomLeavesItOutOfOrderWhileABlockCoversToday) {
  const std::string property = MakeProperty();
  issues::IssueRepository issues(testing::TestDatabase::Get().pool());
  hotel::v1::CreateIssueRequest report;
  report.set_property_id(property);
  report.set_room_number("103");
  report.set_title("Leak");
  report.set_category(hotel::v1::Issue::PLUMBING);
  report.set_reported_by("it-test");
  report.set_take_room_out_of_order(true);
  auto in = issues::ValidateCreateIssue(report);
  ASSERT_TRUE(in.ok());
  hotel::v1::Issue issue;
  ASSERT_TRUE(issues.Create(*in, &issue).ok());
  MustCreate(Request(property, "103", LocalDate("Europe/Berlin", 0), LocalDate("Europe/Berlin", 2)));
  hotel::v1::Issue patch, out;
  patch.set_status(hotel::v1::Issue::RESOLVED);
  ASSERT_TRUE(issues.Update(issue.id(), patch, {"status"}, "", &out).ok());
  EXPECT_TRUE(absl::StartsWith(RoomState(property, "103"), "true ")) << RoomState(property, "103");
  EXPECT_TRUE(absl::StrContains(RoomState(property, "103"), "Room block: Renovation")) << RoomState(property, "103");
  EXPECT_TRUE(absl::StrContains(out.timeline(out.timeline_size() - 1).note(), "Room stays out of order"))
      << out.DebugString();
}

TEST_F(RoomBlockRepositoryTest, TheDailyPassFlipsARoomOnceWhenItsPropertysDateTurnsWhateverRunsIt) {
  const std::string zone = "Pacific/Auckland";
  const std::string property = MakeProperty(zone);
  RoomBlockTransitions first(testing::TestDatabase::Get().pool(), absl::Hours(1));
  RoomBlockTransitions second(testing::TestDatabase::Get().pool(), absl::Hours(1));
  // Starts tomorrow, ends the day after (one night), local to the property.
  MustCreate(Request(property, "101", LocalDate(zone, 1), LocalDate(zone, 2)));
  const absl::Time now = absl::Now();
  ASSERT_TRUE(first.ApplyOnce(now).ok());
  EXPECT_EQ(RoomState(property, "101"), "false v1 ");

  // Tomorrow, applied by two runners at once and then once more: one change of the room.
  auto run_both = [&](absl::Time at) {
    absl::StatusOr<int64_t> a, b;
    std::thread t1([&] { a = first.ApplyOnce(at); });
    std::thread t2([&] { b = second.ApplyOnce(at); });
    t1.join();
    t2.join();
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_TRUE(first.ApplyOnce(at).ok());
  };
  run_both(now + absl::Hours(24));
  EXPECT_EQ(RoomState(property, "101"), "true v2 Room block: Renovation");
  run_both(now + absl::Hours(48));
  EXPECT_EQ(RoomState(property, "101"), "false v3 ");
  // Each flip is one ROOM change of the property (staged for the feed, or sequenced already).
  EXPECT_EQ(testing::TestDatabase::Get().Scalar(absl::StrCat(
                "SELECT count(*) FROM (SELECT resource_type, property_id, resource_id FROM change_log UNION ALL ",
                "SELECT resource_type, property_id, resource_id FROM change_staging) c WHERE resource_type = 'ROOM' ",
                "AND property_id = '", property, "' AND resource_id = '101'")),
            "3");  // created, out of order, back in service
}

}  // namespace
}  // namespace hotel
