// Room data writes against a real PostgreSQL: creates with request ids (also concurrent), one
// etag raced by many writers, the retirement rules (also racing a move onto a type being retired),
// and hotel-admin imports (all or nothing, re-imports that write nothing). Each run uses a
// property of its own, so the seeded properties other tests count stay as they are.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/errors.h"
#include "issues/issue_repository.h"
#include "rooms/admin/property_import.h"
#include "rooms/room_repository.h"
#include "test_database.h"

namespace hotel::rooms {
namespace {

using namespace hotel::v1;

std::string Scalar(const std::string& sql) { return testing::TestDatabase::Get().Scalar(sql); }

class RoomWritesTest : public ::testing::Test {
 protected:
  RoomWritesTest()
      : repository_(testing::TestDatabase::Get().pool()),
        property_(absl::StrCat("T", absl::ToUnixMicros(absl::Now()) % 100000000)) {
    CreatePropertyRequest request;
    request.set_id(property_);
    request.set_name("Integration House");
    request.set_time_zone("Europe/Vienna");
    request.set_city("Vienna");
    request.set_country_code("AT");
    Property property;
    EXPECT_TRUE(repository_.CreateProperty(*ValidateCreateProperty(request), &property).ok());
    for (const char* code : {"STD", "OLD"}) NewRoomType(code);
  }

  RoomType NewRoomType(const std::string& code) {
    CreateRoomTypeRequest request;
    request.set_property_id(property_);
    request.set_code(code);
    request.set_name(code);
    request.set_category(RoomType::STANDARD);
    request.set_size_sqm(20);
    request.set_max_guests(2);
    request.set_bed_type("QUEEN");
    RoomType out;
    absl::Status status = repository_.CreateRoomType(*ValidateCreateRoomType(request), &out);
    EXPECT_TRUE(status.ok()) << status;
    return out;
  }

  absl::Status CreateRoom(const std::string& number, const std::string& code, Room* out,
                          const std::string& request_id = "") {
    CreateRoomRequest request;
    request.set_property_id(property_);
    request.set_number(number);
    request.set_floor(1);
    request.set_room_type_id(absl::StrCat(property_, "-", code));
    request.set_request_id(request_id);
    auto in = ValidateCreateRoom(request);
    if (!in.ok()) return in.status();
    return repository_.CreateRoom(*in, out);
  }

  Room NewRoom(const std::string& number, const std::string& code = "STD") {
    Room room;
    absl::Status status = CreateRoom(number, code, &room);
    EXPECT_TRUE(status.ok()) << status;
    return room;
  }

  absl::Status Patch(const std::string& number, const Room& patch, std::vector<std::string> mask, Room* out) {
    return repository_.UpdateRoom(property_, number, patch, mask, "", out);
  }

  RoomRepository repository_;
  const std::string property_;
};

TEST_F(RoomWritesTest, CreatesReadBackAndRefuseTakenIds) {
  Room room = NewRoom("101");
  EXPECT_EQ(room.room_type_id(), absl::StrCat(property_, "-STD"));
  EXPECT_EQ(room.updated_by(), "api");
  Room again;
  absl::Status taken = CreateRoom("101", "STD", &again);
  EXPECT_EQ(taken.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(ErrorReason(taken), "ROOM_EXISTS");
  EXPECT_EQ(ErrorReason(CreateRoom("102", "NONE", &again)), "ROOM_TYPE_NOT_FOUND");
  Property listed;
  ASSERT_TRUE(repository_.GetProperty(property_, &listed).ok());
  EXPECT_EQ(listed.room_count(), 1);
  EXPECT_EQ(listed.room_type_count(), 2);
}

TEST_F(RoomWritesTest, ConcurrentCreatesWithOneRequestIdMakeOneRoom) {
  constexpr int kClients = 8;
  std::vector<absl::Status> results(kClients);
  std::vector<Room> rooms(kClients);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] { results[i] = CreateRoom("201", "STD", &rooms[i], property_ + "-create-201"); });
  }
  for (auto& t : clients) t.join();
  for (int i = 0; i < kClients; ++i) {
    EXPECT_TRUE(results[i].ok()) << results[i];
    EXPECT_EQ(rooms[i].etag(), rooms[0].etag());
  }
  EXPECT_EQ(Scalar(absl::StrCat("SELECT count(*) FROM rooms WHERE property_id = '", property_, "' AND number = '201'")),
            "1");
  Room other;
  EXPECT_EQ(ErrorReason(CreateRoom("202", "STD", &other, property_ + "-create-201")), "REQUEST_ID_REUSED");
}

TEST_F(RoomWritesTest, ConcurrentPatchesWithOneEtagHaveOneWinner) {
  const Room room = NewRoom("301");
  constexpr int kClients = 8;
  std::vector<absl::Status> results(kClients);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      Room patch, out;
      patch.set_floor(10 + i);
      patch.set_etag(room.etag());
      results[i] = Patch("301", patch, {"floor", "etag"}, &out);
    });
  }
  for (auto& t : clients) t.join();
  int ok = 0, mismatched = 0;
  for (const auto& r : results) {
    ok += r.ok();
    mismatched += ErrorReason(r) == "ETAG_MISMATCH";
  }
  EXPECT_EQ(ok, 1);
  EXPECT_EQ(mismatched, kClients - 1);
  EXPECT_EQ(Scalar(absl::StrCat("SELECT version FROM rooms WHERE property_id = '", property_, "' AND number = '301'")),
            "2");
}

TEST_F(RoomWritesTest, ARoomTypeChangeChangesTheRoomsEtag) {
  const Room room = NewRoom("302");
  RoomType patch, out;
  patch.add_amenities("minibar");
  ASSERT_TRUE(repository_.UpdateRoomType(absl::StrCat(property_, "-STD"), patch, {"amenities"}, "", &out).ok());
  Room after;
  ASSERT_TRUE(repository_.GetRoom(property_, "302", &after).ok());
  EXPECT_NE(after.etag(), room.etag());
  EXPECT_EQ(after.amenities(0), "minibar");
  Room stale;
  stale.set_floor(3);
  stale.set_etag(room.etag());
  EXPECT_EQ(ErrorReason(Patch("302", stale, {"floor", "etag"}, &after)), "ETAG_MISMATCH");
}

TEST_F(RoomWritesTest, RetiringARoomHeldByAnOpenIssueIsRefusedNamingIt) {
  NewRoom("401");
  issues::IssueRepository issues(testing::TestDatabase::Get().pool());
  CreateIssueRequest request;
  request.set_property_id(property_);
  request.set_room_number("401");
  request.set_title("No heating");
  request.set_category(Issue::HVAC);
  request.set_reported_by("it-test");
  request.set_take_room_out_of_order(true);
  Issue issue;
  ASSERT_TRUE(issues.Create(*issues::ValidateCreateIssue(request), &issue).ok());
  Room retire, out;
  retire.set_retired(true);
  absl::Status refused = Patch("401", retire, {"retired"}, &out);
  EXPECT_EQ(ErrorReason(refused), "ROOM_HELD_BY_ISSUE");
  EXPECT_NE(refused.message().find(issue.id()), std::string::npos) << refused;
  EXPECT_TRUE(Patch("402", retire, {"retired"}, &out).code() == absl::StatusCode::kNotFound);
}

TEST_F(RoomWritesTest, RetiringATypeRacingMovesOntoItNeverLeavesAnActiveRoomOnARetiredType) {
  for (int round = 0; round < 10; ++round) {
    const std::string code = absl::StrCat("R", round);
    NewRoomType(code);
    const std::string number = absl::StrCat("5", round);
    NewRoom(number);
    absl::Status retired, moved;
    std::thread retire([&] {
      RoomType patch, out;
      patch.set_retired(true);
      retired = repository_.UpdateRoomType(absl::StrCat(property_, "-", code), patch, {"retired"}, "", &out);
    });
    std::thread move([&] {
      Room patch, out;
      patch.set_room_type_id(absl::StrCat(property_, "-", code));
      moved = Patch(number, patch, {"room_type_id"}, &out);
    });
    retire.join();
    move.join();
    EXPECT_TRUE(retired.ok() != moved.ok()) << retired << " / " << moved;  // exactly one wins
  }
  EXPECT_EQ(Scalar(absl::StrCat("SELECT count(*) FROM rooms r JOIN room_types t ON t.id = r.room_type_id WHERE "
                                "r.property_id = '",
                                property_, "' AND r.retired_at IS NULL AND t.retired_at IS NOT NULL")),
            "0");
}

TEST_F(RoomWritesTest, ImportIsAllOrNothingAndAReimportWritesNothing) {
  NewRoom("601");
  auto stored = ExportPropertyFile(testing::TestDatabase::Get().pool(), property_);
  ASSERT_TRUE(stored.ok()) << stored.status();
  PropertyFile file = *stored;
  file.rooms[0].set_floor(7);
  Room added = file.rooms[0];
  added.set_number("602");
  file.rooms.push_back(added);
  file.room_positions.push_back("rooms[1]");
  // One room refused by the database (held out of order): nothing is written.
  issues::IssueRepository issues(testing::TestDatabase::Get().pool());
  NewRoom("603");
  CreateIssueRequest request;
  request.set_property_id(property_);
  request.set_room_number("603");
  request.set_title("Flooded");
  request.set_category(Issue::PLUMBING);
  request.set_reported_by("it-test");
  request.set_take_room_out_of_order(true);
  Issue issue;
  ASSERT_TRUE(issues.Create(*issues::ValidateCreateIssue(request), &issue).ok());
  PropertyFile refused = file;
  Room retire = added;
  retire.set_number("603");
  retire.set_retired(true);
  refused.rooms.push_back(retire);
  refused.room_positions.push_back("rooms[2]");
  auto failed = ImportPropertyFile(testing::TestDatabase::Get().pool(), refused, false, "it-test");
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("rooms[2]"), std::string::npos) << failed.status();
  EXPECT_EQ(Scalar(absl::StrCat("SELECT count(*) FROM rooms WHERE property_id = '", property_, "' AND number = '602'")),
            "0");
  auto applied = ImportPropertyFile(testing::TestDatabase::Get().pool(), file, false, "it-test");
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->changes.size(), 2u);
  const std::string versions = Scalar(absl::StrCat(
      "SELECT string_agg(version::text, ',' ORDER BY number) FROM rooms WHERE property_id = '", property_, "'"));
  auto again = ImportPropertyFile(testing::TestDatabase::Get().pool(), file, false, "it-test");
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->changes.empty());
  EXPECT_EQ(Scalar(absl::StrCat("SELECT string_agg(version::text, ',' ORDER BY number) FROM rooms WHERE "
                                "property_id = '",
                                property_, "'")),
            versions);
}

}  // namespace
}  // namespace hotel::rooms
