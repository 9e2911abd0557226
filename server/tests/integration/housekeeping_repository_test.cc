// Housekeeping against a real PostgreSQL: one-room and bulk writes (all or nothing, the etag of a
// one-room write only), a retried request_id answered without a second write, the overview's
// counts by floor, room type and cell, and a room's history in pages.
#include "housekeeping/housekeeping_repository.h"

#include <gtest/gtest.h>

#include <atomic>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "test_database.h"

namespace hotel {
namespace {

using hotel::v1::HousekeepingCounts;
using hotel::v1::RoomHousekeeping;
using housekeeping::HousekeepingRepository;

// A property of its own per test: rooms 101 and 102 (type A, floor 1) and 201 (type B, floor 2),
// all DIRTY and of UNKNOWN occupancy, as migration 0020 makes a room.
std::string NewProperty() {
  static std::atomic<int> next{0};
  const std::string id = absl::StrCat("H", absl::ToUnixMicros(absl::Now()) % 100000000, next++ % 10);
  testing::TestDatabase::Get().Exec(absl::StrCat(
      "WITH p AS (INSERT INTO properties (id, name, time_zone, city, country_code) VALUES ('", id,
      "', 'Housekeeping', 'Europe/Berlin', 'Berlin', 'DE') RETURNING id), "
      "t AS (INSERT INTO room_types (id, property_id, code, name, category, size_sqm, max_guests, bed_type) "
      "SELECT p.id || '-' || c, p.id, c, c, 'STANDARD', 20, 2, 'DOUBLE' FROM p, unnest(ARRAY['A', 'B']) c "
      "RETURNING id) "
      "INSERT INTO rooms (property_id, number, floor, room_type_id) "
      "SELECT p.id, r.number, r.floor, p.id || '-' || r.code FROM p, (VALUES ('101', 1, 'A'), ('102', 1, 'A'), "
      "('201', 2, 'B')) AS r (number, floor, code) WHERE (SELECT count(*) FROM t) = 2"));
  return id;
}

v1::SetHousekeepingRequest Bulk(const std::string& property, std::vector<std::string> rooms,
                                RoomHousekeeping::Condition condition) {
  v1::SetHousekeepingRequest request;
  request.set_property_id(property);
  for (auto& number : rooms) request.add_room_numbers(std::move(number));
  request.set_condition(condition);
  request.set_updated_by("housekeeping-test");
  return request;
}

int CellRooms(const HousekeepingCounts& counts, RoomHousekeeping::Condition condition,
              RoomHousekeeping::Occupancy occupancy) {
  for (const auto& cell : counts.cells()) {
    if (cell.condition() == condition && cell.occupancy() == occupancy) return cell.rooms();
  }
  return -1;
}

class HousekeepingRepositoryTest : public ::testing::Test {
 protected:
  HousekeepingRepositoryTest() : repository_(testing::TestDatabase::Get().pool()) {}

  absl::Status Set(const v1::SetHousekeepingRequest& request,
                   google::protobuf::RepeatedPtrField<RoomHousekeeping>* out) {
    auto write = housekeeping::ValidateSetHousekeeping(request);
    if (!write.ok()) return write.status();
    return repository_.Write(*write, out);
  }

  int HistoryRows(const std::string& property) {
    return std::stoi(testing::TestDatabase::Get().Scalar(
        absl::StrCat("SELECT count(*) FROM room_housekeeping_history WHERE property_id = '", property, "'")));
  }

  HousekeepingRepository repository_;
};

TEST_F(HousekeepingRepositoryTest, AOneRoomWriteAnswersTheRoomsEtagABulkWriteNone) {
  const std::string property = NewProperty();
  v1::UpdateRoomHousekeepingRequest one;
  one.set_property_id(property);
  one.set_room_number("101");
  one.mutable_housekeeping()->set_condition(RoomHousekeeping::CLEAN);
  one.mutable_housekeeping()->set_updated_by("housekeeping-test");
  auto write = housekeeping::ValidateUpdateRoomHousekeeping(one, "");
  ASSERT_TRUE(write.ok()) << write.status();
  google::protobuf::RepeatedPtrField<RoomHousekeeping> out;
  ASSERT_TRUE(repository_.Write(*write, &out).ok());
  ASSERT_EQ(out.size(), 1);
  EXPECT_EQ(out[0].condition(), RoomHousekeeping::CLEAN);
  EXPECT_FALSE(out[0].etag().empty());

  ASSERT_TRUE(Set(Bulk(property, {"201", "102"}, RoomHousekeeping::CLEAN), &out).ok());
  ASSERT_EQ(out.size(), 2);
  EXPECT_EQ(out[0].room_number(), "201");  // in the write's order
  EXPECT_EQ(out[1].room_number(), "102");
  EXPECT_TRUE(out[0].etag().empty());
}

TEST_F(HousekeepingRepositoryTest, ABulkWriteIsAllOrNothingAndNamesTheRoomThatRefused) {
  const std::string property = NewProperty();
  google::protobuf::RepeatedPtrField<RoomHousekeeping> out;
  ASSERT_TRUE(Set(Bulk(property, {"101"}, RoomHousekeeping::CLEAN), &out).ok());
  const int history = HistoryRows(property);

  // 101 is CLEAN and may be inspected; 102 is DIRTY and may not.
  const absl::Status refused = Set(Bulk(property, {"101", "102"}, RoomHousekeeping::INSPECTED), &out);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_TRUE(absl::StartsWith(refused.message(), "room_numbers[1]: ")) << refused;
  EXPECT_EQ(HistoryRows(property), history);

  const absl::Status missing = Set(Bulk(property, {"101", "999"}, RoomHousekeeping::DIRTY), &out);
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound) << missing;
  EXPECT_TRUE(absl::StartsWith(missing.message(), "room_numbers[1]: ")) << missing;
  EXPECT_EQ(HistoryRows(property), history);
}

TEST_F(HousekeepingRepositoryTest, ARetriedRequestIdAnswersWithoutWritingAgain) {
  const std::string property = NewProperty();
  auto request = Bulk(property, {"101", "201"}, RoomHousekeeping::CLEAN);
  request.set_request_id(absl::StrCat("hk-retry-", property));
  google::protobuf::RepeatedPtrField<RoomHousekeeping> first, again;
  ASSERT_TRUE(Set(request, &first).ok());
  const int history = HistoryRows(property);
  ASSERT_TRUE(Set(request, &again).ok());
  ASSERT_EQ(again.size(), 2);
  EXPECT_EQ(again[1].condition(), RoomHousekeeping::CLEAN);
  EXPECT_EQ(again[1].update_time().seconds(), first[1].update_time().seconds());
  EXPECT_EQ(HistoryRows(property), history);

  request.set_condition(RoomHousekeeping::DIRTY);  // the same id for another request
  const absl::Status reused = Set(request, &again);
  EXPECT_EQ(reused.code(), absl::StatusCode::kFailedPrecondition) << reused;
  EXPECT_TRUE(absl::StrContains(reused.message(), "request_id")) << reused;
}

TEST_F(HousekeepingRepositoryTest, TheOverviewCountsEveryCellByFloorAndRoomType) {
  const std::string property = NewProperty();
  google::protobuf::RepeatedPtrField<RoomHousekeeping> out;
  ASSERT_TRUE(Set(Bulk(property, {"101"}, RoomHousekeeping::CLEAN), &out).ok());
  v1::HousekeepingOverview overview;
  ASSERT_TRUE(repository_.Overview(property, &overview).ok());
  EXPECT_EQ(overview.total().rooms(), 3);
  EXPECT_EQ(overview.total().cells_size(), 9);  // every condition with every occupancy
  EXPECT_EQ(CellRooms(overview.total(), RoomHousekeeping::CLEAN, RoomHousekeeping::UNKNOWN), 1);
  EXPECT_EQ(CellRooms(overview.total(), RoomHousekeeping::DIRTY, RoomHousekeeping::UNKNOWN), 2);
  EXPECT_EQ(CellRooms(overview.total(), RoomHousekeeping::INSPECTED, RoomHousekeeping::VACANT), 0);
  ASSERT_EQ(overview.floors_size(), 2);
  EXPECT_EQ(overview.floors(0).floor(), 1);
  EXPECT_EQ(CellRooms(overview.floors(0).counts(), RoomHousekeeping::DIRTY, RoomHousekeeping::UNKNOWN), 1);
  EXPECT_EQ(overview.floors(1).counts().rooms(), 1);
  ASSERT_EQ(overview.room_types_size(), 2);
  EXPECT_EQ(overview.room_types(0).room_type_id(), property + "-A");
  EXPECT_EQ(CellRooms(overview.room_types(0).counts(), RoomHousekeeping::CLEAN, RoomHousekeeping::UNKNOWN), 1);

  EXPECT_EQ(repository_.Overview(property + "X", &overview).code(), absl::StatusCode::kNotFound);
}

TEST_F(HousekeepingRepositoryTest, ARoomsHistoryComesNewestFirstInPages) {
  const std::string property = NewProperty();
  google::protobuf::RepeatedPtrField<RoomHousekeeping> out;
  for (auto condition : {RoomHousekeeping::CLEAN, RoomHousekeeping::INSPECTED, RoomHousekeeping::DIRTY}) {
    ASSERT_TRUE(Set(Bulk(property, {"102"}, condition), &out).ok());
  }
  v1::ListHousekeepingHistoryRequest request;
  request.set_property_id(property);
  request.set_room_number("102");
  request.set_page_size(2);
  auto query = housekeeping::ParseListHousekeepingHistory(request);
  ASSERT_TRUE(query.ok()) << query.status();
  v1::ListHousekeepingHistoryResponse page;
  ASSERT_TRUE(repository_.History(*query, &page).ok());
  ASSERT_EQ(page.data_size(), 2);
  EXPECT_EQ(page.data(0).condition(), RoomHousekeeping::DIRTY);
  EXPECT_EQ(page.data(0).previous_condition(), RoomHousekeeping::INSPECTED);
  EXPECT_EQ(page.data(1).condition(), RoomHousekeeping::INSPECTED);
  ASSERT_FALSE(page.next_page_token().empty());

  request.set_page_token(page.next_page_token());
  query = housekeeping::ParseListHousekeepingHistory(request);
  ASSERT_TRUE(query.ok()) << query.status();
  ASSERT_TRUE(repository_.History(*query, &page).ok());
  ASSERT_EQ(page.data_size(), 1);
  EXPECT_EQ(page.data(0).condition(), RoomHousekeeping::CLEAN);
  EXPECT_EQ(page.data(0).previous_condition(), RoomHousekeeping::DIRTY);
  EXPECT_TRUE(page.next_page_token().empty());

  request.set_room_number("999");
  request.clear_page_token();
  query = housekeeping::ParseListHousekeepingHistory(request);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_EQ(repository_.History(*query, &page).code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace hotel
