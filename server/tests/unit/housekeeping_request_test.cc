// Housekeeping requests: the transition rule, every bad field named, the bulk set's limits and
// its rooms named by index, the history's page tokens; what a write does to a room (check-out,
// observation order) and the plan of a policy update (1.5.0).
#include "housekeeping/housekeeping_request.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>

#include "absl/strings/str_cat.h"
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

// A write of occupancy VACANT, with a condition and a reason when given.
HousekeepingWrite Checkout(std::optional<std::string> condition = std::nullopt, std::string reason = "") {
  HousekeepingWrite write;
  write.room_numbers = {"101"};
  write.occupancy = "VACANT";
  write.occupancy_source = "pms";
  write.condition = std::move(condition);
  write.reason = std::move(reason);
  return write;
}

TEST(RoomWritePlanTest, ACheckOutDirtiesTheRoomUnlessThePolicyKeepsItOrTheWriteNamesACondition) {
  const RoomState occupied{"INSPECTED", "OCCUPIED", 1000};
  RoomWritePlan plan = PlanRoomWrite(Checkout(), occupied, 2000, "DIRTY");
  EXPECT_TRUE(plan.occupancy_applied && plan.Writes());
  EXPECT_EQ(plan.condition, "DIRTY");
  EXPECT_EQ(plan.reason, kCheckoutReason);
  plan = PlanRoomWrite(Checkout(std::nullopt, "Guest left"), occupied, 2000, "DIRTY");
  EXPECT_EQ(plan.reason, absl::StrCat("Guest left (", kCheckoutReason, ")"));
  plan = PlanRoomWrite(Checkout(), occupied, 2000, "KEEP");
  EXPECT_TRUE(plan.occupancy_applied);
  EXPECT_FALSE(plan.condition.has_value());
  EXPECT_EQ(plan.reason, "");
  plan = PlanRoomWrite(Checkout("CLEAN", "Cleaned at departure"), occupied, 2000, "DIRTY");
  EXPECT_EQ(plan.condition, "CLEAN");
  EXPECT_EQ(plan.reason, "Cleaned at departure");
}

TEST(RoomWritePlanTest, OnlyAMoveFromOccupiedToVacantIsACheckOut) {
  for (const char* from : {"VACANT", "UNKNOWN"}) {
    const RoomWritePlan plan = PlanRoomWrite(Checkout(), {"INSPECTED", from, std::nullopt}, 2000, "DIRTY");
    EXPECT_TRUE(plan.occupancy_applied) << from;
    EXPECT_FALSE(plan.condition.has_value()) << from;
  }
  HousekeepingWrite arrival = Checkout();
  arrival.occupancy = "OCCUPIED";
  EXPECT_FALSE(PlanRoomWrite(arrival, {"INSPECTED", "VACANT", 1000}, 2000, "DIRTY").condition.has_value());
}

TEST(RoomWritePlanTest, AnOccupancyObservedBeforeTheStoredOneIsNotApplied) {
  const RoomState occupied{"INSPECTED", "OCCUPIED", 2000};
  RoomWritePlan plan = PlanRoomWrite(Checkout(), occupied, 1999, "DIRTY");
  EXPECT_FALSE(plan.occupancy_applied);
  EXPECT_FALSE(plan.condition.has_value()) << "a stale check-out is no check-out";
  EXPECT_FALSE(plan.Writes());
  plan = PlanRoomWrite(Checkout("CLEAN"), occupied, 1999, "DIRTY");
  EXPECT_FALSE(plan.occupancy_applied);
  EXPECT_EQ(plan.condition, "CLEAN");
  EXPECT_TRUE(plan.Writes()) << "the condition of the same write still applies";
  EXPECT_TRUE(PlanRoomWrite(Checkout(), occupied, 2000, "DIRTY").occupancy_applied) << "equal applies";
  HousekeepingWrite condition_only;
  condition_only.condition = "CLEAN";
  plan = PlanRoomWrite(condition_only, occupied, 0, "DIRTY");
  EXPECT_FALSE(plan.occupancy_applied);
  EXPECT_TRUE(plan.Writes());
}

hotel::v1::HousekeepingPolicy Policy(std::function<void(hotel::v1::HousekeepingPolicy&)> set) {
  hotel::v1::HousekeepingPolicy policy;
  set(policy);
  return policy;
}

TEST(PolicyPlanTest, TheDefaults) {
  const auto policy = DefaultPolicy("BER1");
  EXPECT_EQ(policy.checkout_condition(), hotel::v1::HousekeepingPolicy::DIRTY);
  EXPECT_EQ(policy.occupied_nightly_condition(), hotel::v1::HousekeepingPolicy::DIRTY);
  EXPECT_EQ(policy.vacant_nightly_downgrade(), hotel::v1::HousekeepingPolicy::NONE);
  EXPECT_EQ(policy.vacant_dirty_after_days(), 0);
  EXPECT_TRUE(policy.inspection_required());
}

TEST(PolicyPlanTest, TheMaskedFieldsChangeAndNothingElse) {
  using hotel::v1::HousekeepingPolicy;
  const auto current = DefaultPolicy("BER1");
  auto patch = Policy([](HousekeepingPolicy& p) {
    p.set_checkout_condition(HousekeepingPolicy::KEEP);
    p.set_vacant_dirty_after_days(3);
    p.set_updated_by("Ana");
  });
  auto plan = PlanPolicyUpdate(current, patch, {"checkout_condition", "inspection_required"}, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->changed);
  EXPECT_EQ(plan->actor, "Ana");
  EXPECT_EQ(plan->updated.checkout_condition(), HousekeepingPolicy::KEEP);
  EXPECT_FALSE(plan->updated.inspection_required()) << "named, so false";
  EXPECT_EQ(plan->updated.vacant_dirty_after_days(), 0) << "not named";
  // Without a mask: the fields set.
  plan = PlanPolicyUpdate(current, patch, {}, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->updated.vacant_dirty_after_days(), 3);
  EXPECT_TRUE(plan->updated.inspection_required());
  // The same values again change nothing.
  plan = PlanPolicyUpdate(current, DefaultPolicy("BER1"), {"checkout_condition"}, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->changed);
}

TEST(PolicyPlanTest, AValueOutOfRangeNamesItsFieldAndAStaleEtagIsAConflict) {
  using hotel::v1::HousekeepingPolicy;
  auto current = DefaultPolicy("BER1");
  current.set_etag("v1");
  auto patch = Policy([](HousekeepingPolicy& p) {
    p.set_checkout_condition(static_cast<HousekeepingPolicy::ConditionRule>(7));
    p.set_vacant_nightly_downgrade(HousekeepingPolicy::VACANT_DOWNGRADE_UNSPECIFIED);
    p.set_vacant_dirty_after_days(8);
  });
  auto plan = PlanPolicyUpdate(
      current, patch,
      {"checkout_condition", "occupied_nightly_condition", "vacant_nightly_downgrade", "vacant_dirty_after_days"}, "");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ViolatedFields(plan.status()),
            (std::vector<std::string>{"checkout_condition", "occupied_nightly_condition", "vacant_nightly_downgrade",
                                      "vacant_dirty_after_days"}));
  patch = Policy([](HousekeepingPolicy& p) { p.set_vacant_dirty_after_days(-1); });
  plan = PlanPolicyUpdate(current, patch, {"vacant_dirty_after_days"}, "");
  EXPECT_EQ(ViolatedFields(plan.status()), (std::vector<std::string>{"vacant_dirty_after_days"}));
  patch = Policy([](HousekeepingPolicy& p) { p.set_vacant_dirty_after_days(7); });
  EXPECT_TRUE(PlanPolicyUpdate(current, patch, {"vacant_dirty_after_days"}, "\"v1\"").ok());
  plan = PlanPolicyUpdate(current, patch, {"vacant_dirty_after_days"}, "\"v0\"");
  EXPECT_EQ(ErrorReason(plan.status()), "ETAG_MISMATCH");
  patch.set_etag("v0");
  EXPECT_EQ(ErrorReason(PlanPolicyUpdate(current, patch, {"vacant_dirty_after_days"}, "").status()), "ETAG_MISMATCH");
}

}  // namespace
}  // namespace hotel::housekeeping
