// Housekeeping requests: the transition rule, every bad field named, the bulk set's limits and
// its rooms named by index, the history's page tokens.
#include "housekeeping/housekeeping_request.h"

#include <gtest/gtest.h>

#include "common/errors.h"

namespace hotel::housekeeping {
namespace {

using hotel::v1::RoomHousekeeping;

hotel::v1::SetHousekeepingRequest ValidSet() {
  hotel::v1::SetHousekeepingRequest request;
  request.set_property_id("BER1");
  request.add_room_numbers("101");
  request.add_room_numbers("102");
  request.set_condition(RoomHousekeeping::CLEAN);
  return request;
}

TEST(HousekeepingRequestTest, InspectedOnlyFromCleanOrInspected) {
  EXPECT_TRUE(CheckTransition("101", "CLEAN", "INSPECTED").ok());
  EXPECT_TRUE(CheckTransition("101", "INSPECTED", "INSPECTED").ok());
  const absl::Status refused = CheckTransition("101", "DIRTY", "INSPECTED");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ErrorReason(refused), "ROOM_NOT_CLEAN");
  EXPECT_NE(refused.message().find("room 101 is DIRTY"), absl::string_view::npos) << refused;
  for (const char* from : {"DIRTY", "CLEAN", "INSPECTED"}) {
    EXPECT_TRUE(CheckTransition("101", from, "DIRTY").ok()) << from;
    EXPECT_TRUE(CheckTransition("101", from, "CLEAN").ok()) << from;
  }
}

TEST(HousekeepingRequestTest, AValidSetDefaultsTheActorAndKeepsTheOrder) {
  auto write = ValidateSetHousekeeping(ValidSet());
  ASSERT_TRUE(write.ok()) << write.status();
  EXPECT_EQ(write->actor, "api");
  EXPECT_EQ(write->condition, "CLEAN");
  EXPECT_FALSE(write->occupancy.has_value());
  EXPECT_EQ(write->room_numbers, (std::vector<std::string>{"101", "102"}));
  EXPECT_EQ(write->RoomField(1), "room_numbers[1]");
  EXPECT_FALSE(write->request_hash.empty());
}

TEST(HousekeepingRequestTest, ASetNamesEachBadField) {
  auto request = ValidSet();
  request.add_room_numbers("101");
  request.add_room_numbers("bad room!");
  request.set_condition(RoomHousekeeping::CONDITION_UNSPECIFIED);
  request.set_occupancy(RoomHousekeeping::OCCUPIED);
  request.set_expected_condition(static_cast<RoomHousekeeping::Condition>(42));
  request.set_request_id("not ok!");
  auto write = ValidateSetHousekeeping(request);
  ASSERT_FALSE(write.ok());
  EXPECT_EQ(ViolatedFields(write.status()),
            (std::vector<std::string>{"room_numbers[2]", "room_numbers[3]", "occupancy_source", "expected_condition",
                                      "request_id"}));
}

TEST(HousekeepingRequestTest, ASetTakesOneToAThousandRooms) {
  auto none = ValidSet();
  none.clear_room_numbers();
  EXPECT_EQ(ViolatedFields(ValidateSetHousekeeping(none).status()), std::vector<std::string>{"room_numbers"});
  auto many = ValidSet();
  many.clear_room_numbers();
  for (int i = 0; i < kMaxRoomsPerSet; ++i) many.add_room_numbers(std::to_string(1000 + i));
  EXPECT_TRUE(ValidateSetHousekeeping(many).ok());
  many.add_room_numbers("9999");
  EXPECT_EQ(ViolatedFields(ValidateSetHousekeeping(many).status()), std::vector<std::string>{"room_numbers"});
}

TEST(HousekeepingRequestTest, AWriteChangesSomething) {
  hotel::v1::UpdateRoomHousekeepingRequest request;
  request.set_property_id("BER1");
  request.set_room_number("101");
  request.mutable_housekeeping()->set_reason("nothing");
  EXPECT_EQ(ViolatedFields(ValidateUpdateRoomHousekeeping(request, "").status()),
            std::vector<std::string>{"condition"});
  request.mutable_housekeeping()->set_occupancy(RoomHousekeeping::VACANT);
  request.mutable_housekeeping()->set_occupancy_source("opera-pms");
  request.mutable_housekeeping()->mutable_occupancy_observe_time()->set_seconds(4102444800);  // 2100
  EXPECT_EQ(ViolatedFields(ValidateUpdateRoomHousekeeping(request, "").status()),
            std::vector<std::string>{"occupancy_observe_time"});
  request.mutable_housekeeping()->mutable_occupancy_observe_time()->set_seconds(1767225600);  // 2026
  auto write = ValidateUpdateRoomHousekeeping(request, "\"etag\"");
  ASSERT_TRUE(write.ok()) << write.status();
  EXPECT_EQ(write->occupancy, "VACANT");
  EXPECT_EQ(write->observed_micros, int64_t{1767225600} * 1000000);
  EXPECT_EQ(write->RoomField(0), "room_number");
  EXPECT_EQ(write->if_match, "\"etag\"");
}

TEST(HousekeepingRequestTest, AHistoryNeedsItsPropertyAndRefusesForgedTokens) {
  hotel::v1::ListHousekeepingHistoryRequest request;
  request.set_room_number("101");
  EXPECT_EQ(ErrorReason(ParseListHousekeepingHistory(request).status()), "PROPERTY_ID_REQUIRED");
  request.set_property_id("BER1");
  auto query = ParseListHousekeepingHistory(request);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_EQ(query->page_size, 50);
  request.set_page_token("forged");
  EXPECT_EQ(ErrorReason(ParseListHousekeepingHistory(request).status()), "INVALID_PAGE_TOKEN");
}

}  // namespace
}  // namespace hotel::housekeeping
