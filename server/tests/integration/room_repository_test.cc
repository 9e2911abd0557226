#include "rooms/room_repository.h"

#include <gtest/gtest.h>

#include "absl/strings/str_split.h"
#include "common/errors.h"
#include "test_database.h"

namespace hotel::rooms {
namespace {

using namespace hotel::v1;

class RoomRepositoryTest : public ::testing::Test {
 protected:
  RoomRepositoryTest() : repository_(testing::TestDatabase::Get().pool()) {}

  ListRoomsResponse ListRooms(const ListRoomsRequest& request) {
    auto query = ParseListRooms(request);
    EXPECT_TRUE(query.ok()) << query.status();
    ListRoomsResponse response;
    absl::Status status = repository_.ListRooms(*query, &response);
    EXPECT_TRUE(status.ok()) << status;
    return response;
  }

  RoomRepository repository_;
};

TEST_F(RoomRepositoryTest, SeedHasTwoPropertiesWithTheirCounts) {
  auto query = ParseListProperties(ListPropertiesRequest());
  ListPropertiesResponse response;
  ASSERT_TRUE(repository_.ListProperties(*query, &response).ok());
  ASSERT_EQ(response.data_size(), 2);
  EXPECT_EQ(response.data(0).id(), "BER1");
  EXPECT_EQ(response.data(0).room_count(), 50);
  EXPECT_EQ(response.data(0).room_type_count(), 6);
  EXPECT_EQ(response.data(1).id(), "LIS1");
  EXPECT_EQ(response.data(1).time_zone(), "Europe/Lisbon");
  EXPECT_TRUE(response.next_page_token().empty());
}

TEST_F(RoomRepositoryTest, PagingVisitsEveryRoomOnceInOrder) {
  ListRoomsRequest request;
  request.set_page_size(7);
  std::vector<std::string> seen;
  int pages = 0;
  do {
    ListRoomsResponse page = ListRooms(request);
    ASSERT_LE(page.data_size(), 7);
    for (const auto& room : page.data()) seen.push_back(room.property_id() + "/" + room.number());
    request.set_page_token(page.next_page_token());
    ++pages;
  } while (!request.page_token().empty() && pages < 100);
  // Every room the table lists, in its order: the seed's 74 as other tests of this process left them when the
  // binary runs as one process (room_cache_test moves rooms to other floors, room_writes_test adds some).
  const std::vector<std::string> rooms = absl::StrSplit(
      testing::TestDatabase::Get().Scalar("SELECT string_agg(property_id || '/' || number, ',' "
                                          "ORDER BY property_id, floor, number) FROM rooms WHERE retired_at IS NULL"),
      ',');
  EXPECT_EQ(seen, rooms);
  EXPECT_GE(seen.size(), 74u);
  EXPECT_EQ(pages, static_cast<int>((rooms.size() + 6) / 7));  // 7 a page, no empty last page
}

TEST_F(RoomRepositoryTest, FiltersCombine) {
  ListRoomsRequest request;
  request.set_property_id("BER1");
  request.set_floor(4);
  request.add_amenities("balcony");
  ListRoomsResponse response = ListRooms(request);
  // Floor 4: deluxe 407 and room 404 with a balcony extra, suite 410 has a terrace, not a balcony.
  std::vector<std::string> numbers;
  for (const auto& room : response.data()) {
    numbers.push_back(room.number());
    EXPECT_EQ(room.floor(), 4);
    EXPECT_NE(std::find(room.amenities().begin(), room.amenities().end(), "balcony"), room.amenities().end());
  }
  EXPECT_EQ(numbers, (std::vector<std::string>{"404", "407"}));
}

TEST_F(RoomRepositoryTest, AvailabilityFollowsOutOfOrder) {
  auto& db = testing::TestDatabase::Get();
  db.Exec(
      "UPDATE rooms SET out_of_order = true, out_of_order_reason = 'leak', out_of_order_since = now() "
      "WHERE property_id = 'LIS1' AND number = '201'");
  ListRoomsRequest request;
  request.set_property_id("LIS1");
  request.set_available(false);
  ListRoomsResponse response = ListRooms(request);
  ASSERT_EQ(response.data_size(), 1);
  EXPECT_EQ(response.data(0).number(), "201");
  EXPECT_FALSE(response.data(0).available());
  EXPECT_EQ(response.data(0).out_of_order_reason(), "leak");
  EXPECT_GT(response.data(0).out_of_order_since().seconds(), 1700000000);

  Room room;
  ASSERT_TRUE(repository_.GetRoom("LIS1", "201", &room).ok());
  EXPECT_TRUE(room.out_of_order());
  db.Exec(
      "UPDATE rooms SET out_of_order = false, out_of_order_reason = '', out_of_order_since = NULL "
      "WHERE property_id = 'LIS1' AND number = '201'");
}

TEST_F(RoomRepositoryTest, RoomTypeFilters) {
  ListRoomTypesRequest request;
  request.set_guests(4);
  request.set_min_size_sqm(50);
  auto query = ParseListRoomTypes(request);
  ListRoomTypesResponse response;
  ASSERT_TRUE(repository_.ListRoomTypes(*query, &response).ok());
  std::vector<std::string> ids;
  for (const auto& t : response.data()) ids.push_back(t.id());
  EXPECT_EQ(ids, (std::vector<std::string>{"BER1-STE", "LIS1-STE"}));
  EXPECT_EQ(response.data(0).category(), RoomType::SUITE);
  EXPECT_DOUBLE_EQ(response.data(0).size_sqm(), 56.0);
}

TEST_F(RoomRepositoryTest, UnknownRecordsAreNotFoundWithAReason) {
  Room room;
  absl::Status status = repository_.GetRoom("BER1", "999", &room);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ErrorReason(status), "ROOM_NOT_FOUND");

  RoomType type;
  EXPECT_EQ(ErrorReason(repository_.GetRoomType("BER1-XXL", &type)), "ROOM_TYPE_NOT_FOUND");
  Property property;
  EXPECT_EQ(ErrorReason(repository_.GetProperty("PAR9", &property)), "PROPERTY_NOT_FOUND");

  ListRoomsRequest request;
  request.set_property_id("PAR9");
  auto query = ParseListRooms(request);
  ListRoomsResponse response;
  EXPECT_EQ(ErrorReason(repository_.ListRooms(*query, &response)), "PROPERTY_NOT_FOUND");
}

TEST_F(RoomRepositoryTest, StringsThatLookLikeSqlAreJustValues) {
  ListRoomsRequest request;
  request.set_room_type_id("BER1-STD");
  auto query = ParseListRooms(request);
  ASSERT_TRUE(query.ok());
  query->room_type_id = "x' OR '1'='1";  // bypasses validation on purpose
  ListRoomsResponse response;
  ASSERT_TRUE(repository_.ListRooms(*query, &response).ok());
  EXPECT_EQ(response.data_size(), 0);
}

}  // namespace
}  // namespace hotel::rooms

namespace hotel::rooms {
namespace {

TEST(RoomBatchGet, OneStatementAnswersTheRoomsInTheOrderAskedAsTheListShowsThem) {
  RoomRepository repository(testing::TestDatabase::Get().pool());
  hotel::v1::BatchGetRoomsRequest request;
  request.set_property_id("LIS1");
  for (const char* number : {"301", "G01", "104"}) request.add_numbers(number);
  auto query = ParseBatchGetRooms(request);
  ASSERT_TRUE(query.ok()) << query.status();
  hotel::v1::BatchGetRoomsResponse response;
  ASSERT_TRUE(repository.BatchGetRooms(*query, &response).ok());
  ASSERT_EQ(response.rooms_size(), 3);
  EXPECT_EQ(response.rooms(0).number(), "301");
  EXPECT_EQ(response.rooms(1).number(), "G01");
  EXPECT_EQ(response.rooms(2).number(), "104");
  hotel::v1::Room single;
  ASSERT_TRUE(repository.GetRoom("LIS1", "G01", &single).ok());
  single.clear_images();
  EXPECT_EQ(response.rooms(1).DebugString(), single.DebugString());
}

TEST(RoomBatchGet, MissingRoomsAndPropertiesAreNamed) {
  RoomRepository repository(testing::TestDatabase::Get().pool());
  hotel::v1::BatchGetRoomsResponse response;
  absl::Status missing = repository.BatchGetRooms({"LIS1", {"G09", "301", "999"}}, &response);
  EXPECT_EQ(ErrorReason(missing), "ROOM_NOT_FOUND");
  EXPECT_EQ(missing.message(), "rooms G09, 999 do not exist in property LIS1");
  EXPECT_EQ(ErrorReason(repository.BatchGetRooms({"NOPE1", {"301"}}, &response)), "PROPERTY_NOT_FOUND");
}

}  // namespace
}  // namespace hotel::rooms
