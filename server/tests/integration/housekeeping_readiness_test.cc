// Housekeeping readiness (1.5.0) against a real PostgreSQL: what housekeeping found and the
// discrepancy it gives (the room list's filter, the overview's counts), service requests on
// occupied rooms only and cleared at check-out, cleaning priorities, each write in the history,
// readiness (the field, the room list's filter and the overview's count agree on every room) and
// the typed work list.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/errors.h"
#include "housekeeping/housekeeping_repository.h"
#include "rooms/room_repository.h"
#include "rooms/room_request.h"
#include "test_database.h"

namespace hotel {
namespace {

using hotel::v1::HousekeepingOverview;
using hotel::v1::RoomHousekeeping;
using hotel::v1::RoomReadiness;
using housekeeping::HousekeepingRepository;

// A property of its own per test: rooms 101 to 106 (floor 1) of one type, DIRTY and UNKNOWN.
std::string NewProperty() {
  static std::atomic<int> next{0};
  const std::string id = absl::StrCat("R", absl::ToUnixMicros(absl::Now()) % 100000000, next++ % 10);
  testing::TestDatabase::Get().Exec(absl::StrCat(
      "WITH p AS (INSERT INTO properties (id, name, time_zone, city, country_code) VALUES ('", id,
      "', 'Readiness', 'Europe/Berlin', 'Berlin', 'DE') RETURNING id), "
      "t AS (INSERT INTO room_types (id, property_id, code, name, category, size_sqm, max_guests, bed_type) "
      "SELECT p.id || '-A', p.id, 'A', 'A', 'STANDARD', 20, 2, 'DOUBLE' FROM p RETURNING id) "
      "INSERT INTO rooms (property_id, number, floor, room_type_id) "
      "SELECT p.id, n::text, 1, p.id || '-A' FROM p, generate_series(101, 106) n WHERE (SELECT count(*) FROM t) = 1"));
  return id;
}

class HousekeepingReadinessTest : public ::testing::Test {
 protected:
  HousekeepingReadinessTest()
      : repository_(testing::TestDatabase::Get().pool()), rooms_(testing::TestDatabase::Get().pool()) {}

  // A bulk set of the rooms, its fields set by set.
  absl::Status Set(const std::string& property, std::vector<std::string> numbers,
                   const std::function<void(v1::SetHousekeepingRequest&)>& set) {
    v1::SetHousekeepingRequest request;
    request.set_property_id(property);
    for (auto& number : numbers) request.add_room_numbers(std::move(number));
    request.set_updated_by("readiness-test");
    set(request);
    auto write = housekeeping::ValidateSetHousekeeping(request);
    if (!write.ok()) return write.status();
    google::protobuf::RepeatedPtrField<RoomHousekeeping> out;
    return repository_.Write(*write, &out);
  }

  absl::Status Occupancy(const std::string& property, std::vector<std::string> numbers,
                         RoomHousekeeping::Occupancy occupancy) {
    return Set(property, std::move(numbers), [&](v1::SetHousekeepingRequest& r) {
      r.set_occupancy(occupancy);
      r.set_occupancy_source("pms");
    });
  }

  absl::Status Condition(const std::string& property, std::vector<std::string> numbers,
                         RoomHousekeeping::Condition condition) {
    return Set(property, std::move(numbers), [&](v1::SetHousekeepingRequest& r) { r.set_condition(condition); });
  }

  RoomHousekeeping Room(const std::string& property, const std::string& number) {
    v1::Room room;
    EXPECT_TRUE(rooms_.GetRoom(property, number, &room).ok());
    return room.housekeeping();
  }

  // The numbers of the property's rooms the room list answers with filter set.
  std::set<std::string> Listed(const std::string& property, const std::function<void(v1::ListRoomsRequest&)>& set) {
    v1::ListRoomsRequest request;
    request.set_property_id(property);
    request.set_page_size(500);
    set(request);
    auto query = rooms::ParseListRooms(request);
    EXPECT_TRUE(query.ok()) << query.status();
    v1::ListRoomsResponse response;
    EXPECT_TRUE(rooms_.ListRooms(*query, &response).ok());
    std::set<std::string> numbers;
    for (const auto& room : response.data()) numbers.insert(room.number());
    return numbers;
  }

  HousekeepingOverview Overview(const std::string& property) {
    HousekeepingOverview overview;
    EXPECT_TRUE(repository_.Overview(property, &overview).ok());
    return overview;
  }

  int HistoryRows(const std::string& property) {
    return std::stoi(testing::TestDatabase::Get().Scalar(
        absl::StrCat("SELECT count(*) FROM room_housekeeping_history WHERE property_id = '", property, "'")));
  }

  HousekeepingRepository repository_;
  rooms::RoomRepository rooms_;
};

TEST_F(HousekeepingReadinessTest, WhatHousekeepingFindsGivesADiscrepancyUntilThePmsAgrees) {
  const std::string property = NewProperty();
  ASSERT_TRUE(Occupancy(property, {"101"}, RoomHousekeeping::OCCUPIED).ok());
  ASSERT_TRUE(Occupancy(property, {"102"}, RoomHousekeeping::VACANT).ok());
  ASSERT_TRUE(Set(property, {"101"}, [](auto& r) { r.set_observed_occupancy(RoomHousekeeping::VACANT); }).ok());
  ASSERT_TRUE(
      Set(property, {"102", "103"}, [](auto& r) { r.set_observed_occupancy(RoomHousekeeping::OCCUPIED); }).ok());
  const RoomHousekeeping skip = Room(property, "101");
  EXPECT_EQ(skip.discrepancy(), RoomHousekeeping::SKIP);
  EXPECT_EQ(skip.observed_occupancy(), RoomHousekeeping::VACANT);
  EXPECT_EQ(skip.observed_occupancy_by(), "readiness-test");
  EXPECT_GT(skip.observed_occupancy_time().seconds(), 0);
  EXPECT_EQ(Room(property, "102").discrepancy(), RoomHousekeeping::SLEEP);
  EXPECT_EQ(Room(property, "103").discrepancy(), RoomHousekeeping::DISCREPANCY_UNSPECIFIED) << "UNKNOWN: no claim";
  using Filter = v1::ListRoomsRequest;
  EXPECT_EQ(Listed(property, [](auto& r) { r.set_discrepancy(Filter::SKIP); }), std::set<std::string>{"101"});
  EXPECT_EQ(Listed(property, [](auto& r) { r.set_discrepancy(Filter::SLEEP); }), std::set<std::string>{"102"});
  EXPECT_EQ(Listed(property, [](auto& r) { r.set_discrepancy(Filter::ANY); }), (std::set<std::string>{"101", "102"}));
  const auto overview = Overview(property);
  EXPECT_EQ(overview.total().skip_rooms(), 1);
  EXPECT_EQ(overview.total().sleep_rooms(), 1);
  EXPECT_EQ(overview.floors(0).counts().skip_rooms(), 1);
  EXPECT_EQ(overview.room_types(0).counts().sleep_rooms(), 1);

  // The PMS learns the guest left: the two agree and the discrepancy clears.
  ASSERT_TRUE(Occupancy(property, {"101"}, RoomHousekeeping::VACANT).ok());
  EXPECT_EQ(Room(property, "101").discrepancy(), RoomHousekeeping::DISCREPANCY_UNSPECIFIED);
  EXPECT_EQ(Listed(property, [](auto& r) { r.set_discrepancy(Filter::SKIP); }), std::set<std::string>{});
}

TEST_F(HousekeepingReadinessTest, AServiceRequestIsForAnOccupiedRoomAndLeavesWithTheGuest) {
  const std::string property = NewProperty();
  const int before = HistoryRows(property);
  const absl::Status refused =
      Set(property, {"101", "102"}, [](auto& r) { r.set_service_request(RoomHousekeeping::DO_NOT_DISTURB); });
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_EQ(ErrorReason(refused), "ROOM_NOT_OCCUPIED");
  EXPECT_TRUE(absl::StartsWith(refused.message(), "room_numbers[0]: room 101 is UNKNOWN")) << refused;
  EXPECT_EQ(HistoryRows(property), before) << "nothing changed";

  ASSERT_TRUE(Occupancy(property, {"101", "102"}, RoomHousekeeping::OCCUPIED).ok());
  ASSERT_TRUE(Set(property, {"101"}, [](auto& r) { r.set_service_request(RoomHousekeeping::DO_NOT_DISTURB); }).ok());
  ASSERT_TRUE(Set(property, {"102"}, [](auto& r) { r.set_service_request(RoomHousekeeping::MAKE_UP_ROOM); }).ok());
  EXPECT_EQ(Room(property, "101").service_request(), RoomHousekeeping::DO_NOT_DISTURB);
  EXPECT_EQ(Room(property, "103").service_request(), RoomHousekeeping::NONE);

  ASSERT_TRUE(Occupancy(property, {"101"}, RoomHousekeeping::VACANT).ok());  // check-out
  const RoomHousekeeping departed = Room(property, "101");
  EXPECT_EQ(departed.service_request(), RoomHousekeeping::NONE);
  EXPECT_EQ(departed.condition(), RoomHousekeeping::DIRTY);
  v1::ListHousekeepingHistoryRequest request;
  request.set_property_id(property);
  request.set_room_number("101");
  auto query = housekeeping::ParseListHousekeepingHistory(request);
  ASSERT_TRUE(query.ok());
  v1::ListHousekeepingHistoryResponse history;
  ASSERT_TRUE(repository_.History(*query, &history).ok());
  ASSERT_EQ(history.data_size(), 3) << "arrival, do not disturb, check-out";
  EXPECT_EQ(history.data(0).service_request(), RoomHousekeeping::NONE);
  EXPECT_EQ(history.data(1).service_request(), RoomHousekeeping::DO_NOT_DISTURB);
  EXPECT_EQ(history.data(2).service_request(), RoomHousekeeping::NONE);
}

TEST_F(HousekeepingReadinessTest, TheReadyFieldTheReadyFilterAndTheOverviewAgreeOnEveryRoom) {
  const std::string property = NewProperty();
  auto& db = testing::TestDatabase::Get();
  ASSERT_TRUE(Occupancy(property, {"101", "102", "103", "104", "105"}, RoomHousekeeping::VACANT).ok());
  ASSERT_TRUE(Condition(property, {"101", "102", "103", "104", "105", "106"}, RoomHousekeeping::CLEAN).ok());
  ASSERT_TRUE(Condition(property, {"101", "103", "104", "105", "106"}, RoomHousekeeping::INSPECTED).ok());
  // 101 ready; 102 CLEAN; 103 SLEEP; 104 out of service today; 105 out of order; 106 UNKNOWN.
  ASSERT_TRUE(Set(property, {"103"}, [](auto& r) { r.set_observed_occupancy(RoomHousekeeping::OCCUPIED); }).ok());
  db.Exec(absl::StrCat("INSERT INTO room_blocks (property_id, room_number, type, start_date) VALUES ('", property,
                       "', '104', 'OUT_OF_SERVICE', (now() AT TIME ZONE 'Europe/Berlin')::date)"));
  db.Exec(absl::StrCat("INSERT INTO room_blocks (property_id, room_number, type, start_date) VALUES ('", property,
                       "', '101', 'OUT_OF_SERVICE', (now() AT TIME ZONE 'Europe/Berlin')::date + 1)"));
  db.Exec(
      absl::StrCat("UPDATE rooms SET out_of_order = true, out_of_order_reason = 'Leak', out_of_order_since = now() "
                   "WHERE property_id = '",
                   property, "' AND number = '105'"));
  std::map<std::string, std::vector<RoomReadiness::NotReadyReason>> expected = {
      {"101", {}},
      {"102", {RoomReadiness::NOT_INSPECTED}},
      {"103", {RoomReadiness::DISCREPANCY}},
      {"104", {RoomReadiness::OUT_OF_SERVICE}},
      {"105", {RoomReadiness::OUT_OF_ORDER}},
      {"106", {RoomReadiness::OCCUPANCY_UNKNOWN}}};
  auto check = [&](const std::set<std::string>& ready_numbers) {
    std::set<std::string> ready;
    for (const auto& [number, reasons] : expected) {
      const RoomHousekeeping room = Room(property, number);
      EXPECT_EQ(std::vector<int>(room.not_ready_reasons().begin(), room.not_ready_reasons().end()),
                std::vector<int>(reasons.begin(), reasons.end()))
          << number;
      if (room.ready()) ready.insert(number);
    }
    EXPECT_EQ(ready, ready_numbers);
    EXPECT_EQ(Listed(property, [](auto& r) { r.set_ready(true); }), ready);
    std::set<std::string> not_ready;
    for (const auto& [number, reasons] : expected) {
      if (!ready.count(number)) not_ready.insert(number);
    }
    EXPECT_EQ(Listed(property, [](auto& r) { r.set_ready(false); }), not_ready);
    const auto overview = Overview(property);
    EXPECT_EQ(overview.total().ready_rooms(), static_cast<int>(ready.size()));
    EXPECT_EQ(overview.floors(0).counts().ready_rooms(), static_cast<int>(ready.size()));
    EXPECT_EQ(overview.room_types(0).counts().ready_rooms(), static_cast<int>(ready.size()));
  };
  check({"101"});

  // Without inspection required, the CLEAN room is ready too.
  db.Exec(absl::StrCat("INSERT INTO housekeeping_policies (property_id, inspection_required) VALUES ('", property,
                       "', false)"));
  expected["102"].clear();
  check({"101", "102"});
}

TEST_F(HousekeepingReadinessTest, TheWorkListIsTypedByPriorityFloorAndNumberWithWithheldServiceApart) {
  const std::string property = NewProperty();
  // 101 departure, 102 stay-over (priority 5), 103 stay-over with DND, 104 CLEAN to inspect
  // (priority 1), 105 INSPECTED (not on it), 106 departure of UNKNOWN occupancy (priority 5).
  ASSERT_TRUE(Occupancy(property, {"101", "104", "105"}, RoomHousekeeping::VACANT).ok());
  ASSERT_TRUE(Occupancy(property, {"102", "103"}, RoomHousekeeping::OCCUPIED).ok());
  ASSERT_TRUE(Set(property, {"103"}, [](auto& r) { r.set_service_request(RoomHousekeeping::DO_NOT_DISTURB); }).ok());
  ASSERT_TRUE(Condition(property, {"104", "105"}, RoomHousekeeping::CLEAN).ok());
  ASSERT_TRUE(Condition(property, {"105"}, RoomHousekeeping::INSPECTED).ok());
  ASSERT_TRUE(Set(property, {"102", "106"}, [](auto& r) { r.set_cleaning_priority(5); }).ok());
  ASSERT_TRUE(Set(property, {"104"}, [](auto& r) { r.set_cleaning_priority(1); }).ok());
  EXPECT_EQ(Room(property, "104").cleaning_priority(), 1);

  using WorkItem = HousekeepingOverview::WorkItem;
  auto overview = Overview(property);
  std::vector<std::pair<std::string, int>> items;
  for (const auto& item : overview.work_list()) items.emplace_back(item.room_number(), item.type());
  EXPECT_EQ(items, (std::vector<std::pair<std::string, int>>{{"104", WorkItem::INSPECT},
                                                             {"102", WorkItem::STAYOVER},
                                                             {"106", WorkItem::DEPARTURE},
                                                             {"101", WorkItem::DEPARTURE}}));
  EXPECT_EQ(overview.work_list(0).cleaning_priority(), 1);
  ASSERT_EQ(overview.no_service_list_size(), 1);
  EXPECT_EQ(overview.no_service_list(0).room_number(), "103");
  EXPECT_EQ(overview.no_service_list(0).type(), WorkItem::STAYOVER);
  EXPECT_EQ(overview.no_service_list(0).service_request(), RoomHousekeeping::DO_NOT_DISTURB);

  // Priority 0 clears it; without inspection required nothing is left to inspect.
  ASSERT_TRUE(Set(property, {"104"}, [](auto& r) { r.set_cleaning_priority(0); }).ok());
  testing::TestDatabase::Get().Exec(absl::StrCat(
      "INSERT INTO housekeeping_policies (property_id, inspection_required) VALUES ('", property, "', false)"));
  overview = Overview(property);
  items.clear();
  for (const auto& item : overview.work_list()) items.emplace_back(item.room_number(), item.type());
  EXPECT_EQ(items, (std::vector<std::pair<std::string, int>>{
                       {"102", WorkItem::STAYOVER}, {"106", WorkItem::DEPARTURE}, {"101", WorkItem::DEPARTURE}}));
}

}  // namespace
}  // namespace hotel
