// Housekeeping requests: the transition rule, every bad field named, the bulk set's limits and
// its rooms named by index, the history's page tokens; what a write does to a room (check-out,
// observation order) and the plan of a policy update (1.5.0); what housekeeping sees, service
// requests, cleaning priorities, readiness and the work list's items (1.5.0).
#include "housekeeping/housekeeping_request.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/errors.h"
#include "rooms/room_readiness.h"

namespace hotel::housekeeping {
namespace {

using hotel::v1::RoomHousekeeping;
// The readiness rules live with the room (rooms/room_readiness.h); they are tested here with the rules they serve.
using rooms::DiscrepancyOf;
using rooms::NotReadyReasons;
using rooms::ReadinessFacts;
using rooms::SetReadiness;

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

// 1.5.0: what housekeeping sees, service requests, cleaning priorities, readiness, the work list.

hotel::v1::UpdateRoomHousekeepingRequest OneRoom(std::function<void(RoomHousekeeping&)> set) {
  hotel::v1::UpdateRoomHousekeepingRequest request;
  request.set_property_id("BER1");
  request.set_room_number("101");
  set(*request.mutable_housekeeping());
  return request;
}

TEST(ReadinessRequestTest, TheNewFieldsAreWritesOfTheirOwnAndEachBadOneIsNamed) {
  auto write = ValidateUpdateRoomHousekeeping(OneRoom([](RoomHousekeeping& h) {
                                                h.set_observed_occupancy(RoomHousekeeping::VACANT);
                                                h.set_service_request(RoomHousekeeping::DO_NOT_DISTURB);
                                                h.set_cleaning_priority(0);
                                              }),
                                              "");
  ASSERT_TRUE(write.ok()) << write.status();
  EXPECT_EQ(write->observed_occupancy, "VACANT");
  EXPECT_EQ(write->service_request, "DO_NOT_DISTURB");
  EXPECT_EQ(write->cleaning_priority, 0) << "0 is set (it clears the priority), not unset";
  EXPECT_FALSE(write->condition.has_value());
  for (const auto& set : std::vector<std::function<void(RoomHousekeeping&)>>{
           [](RoomHousekeeping& h) { h.set_observed_occupancy(RoomHousekeeping::OCCUPIED); },
           [](RoomHousekeeping& h) { h.set_service_request(RoomHousekeeping::NONE); },
           [](RoomHousekeeping& h) { h.set_cleaning_priority(999); }}) {
    EXPECT_TRUE(ValidateUpdateRoomHousekeeping(OneRoom(set), "").ok());
  }
  auto bad = ValidateUpdateRoomHousekeeping(OneRoom([](RoomHousekeeping& h) {
                                              h.set_observed_occupancy(RoomHousekeeping::UNKNOWN);
                                              h.set_service_request(static_cast<RoomHousekeeping::ServiceRequest>(42));
                                              h.set_cleaning_priority(1000);
                                            }),
                                            "");
  EXPECT_EQ(ViolatedFields(bad.status()),
            (std::vector<std::string>{"observed_occupancy", "service_request", "cleaning_priority"}));
  auto set = ValidSet();
  set.clear_condition();
  set.set_cleaning_priority(-1);
  EXPECT_EQ(ViolatedFields(ValidateSetHousekeeping(set).status()), std::vector<std::string>{"cleaning_priority"});
  set.set_cleaning_priority(5);
  auto priority = ValidateSetHousekeeping(set);
  ASSERT_TRUE(priority.ok()) << priority.status();
  EXPECT_EQ(priority->cleaning_priority, 5);
}

TEST(ReadinessRequestTest, AServiceRequestNeedsTheRoomOccupiedAfterTheWrite) {
  HousekeepingWrite dnd;
  dnd.service_request = "DO_NOT_DISTURB";
  const RoomState vacant{"DIRTY", "VACANT", 1000};
  RoomWritePlan plan = PlanRoomWrite(dnd, vacant, 2000, "DIRTY");
  EXPECT_TRUE(plan.Writes());
  const absl::Status refused = CheckServiceRequest("101", plan);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ErrorReason(refused), "ROOM_NOT_OCCUPIED");
  EXPECT_NE(refused.message().find("room 101 is VACANT"), absl::string_view::npos) << refused;
  EXPECT_TRUE(CheckServiceRequest("101", PlanRoomWrite(dnd, {"DIRTY", "OCCUPIED", 1000}, 2000, "DIRTY")).ok());
  HousekeepingWrite arrival_with_dnd = dnd;
  arrival_with_dnd.occupancy = "OCCUPIED";
  arrival_with_dnd.occupancy_source = "pms";
  EXPECT_TRUE(CheckServiceRequest("101", PlanRoomWrite(arrival_with_dnd, vacant, 2000, "DIRTY")).ok());
  EXPECT_EQ(ErrorReason(CheckServiceRequest("101", PlanRoomWrite(arrival_with_dnd, vacant, 999, "DIRTY"))),
            "ROOM_NOT_OCCUPIED")
      << "an arrival observed too late does not make the room occupied";
  HousekeepingWrite none;
  none.service_request = "NONE";
  EXPECT_TRUE(CheckServiceRequest("101", PlanRoomWrite(none, vacant, 2000, "DIRTY")).ok());
}

TEST(ReadinessRequestTest, ACheckOutClearsTheServiceRequestAnOlderObservationDoesNot) {
  const RoomState occupied{"DIRTY", "OCCUPIED", 1000};
  RoomWritePlan plan = PlanRoomWrite(Checkout(), occupied, 2000, "DIRTY");
  EXPECT_EQ(plan.service_request, "NONE");
  EXPECT_EQ(plan.occupancy, "VACANT");
  HousekeepingWrite unknown = Checkout();
  unknown.occupancy = "UNKNOWN";
  EXPECT_EQ(PlanRoomWrite(unknown, occupied, 2000, "DIRTY").service_request, "NONE");
  plan = PlanRoomWrite(Checkout(), occupied, 999, "DIRTY");
  EXPECT_FALSE(plan.service_request.has_value());
  EXPECT_EQ(plan.occupancy, "OCCUPIED");
  HousekeepingWrite stay = Checkout();
  stay.occupancy = "OCCUPIED";
  EXPECT_FALSE(PlanRoomWrite(stay, occupied, 2000, "DIRTY").service_request.has_value());
}

TEST(ReadinessTest, ADiscrepancyIsWhereThePmsAndHousekeepingDisagree) {
  EXPECT_EQ(DiscrepancyOf("OCCUPIED", "VACANT"), RoomHousekeeping::SKIP);
  EXPECT_EQ(DiscrepancyOf("VACANT", "OCCUPIED"), RoomHousekeeping::SLEEP);
  for (const char* occupancy : {"VACANT", "OCCUPIED", "UNKNOWN"}) {
    EXPECT_EQ(DiscrepancyOf(occupancy, occupancy), RoomHousekeeping::DISCREPANCY_UNSPECIFIED) << occupancy;
    EXPECT_EQ(DiscrepancyOf(occupancy, ""), RoomHousekeeping::DISCREPANCY_UNSPECIFIED) << occupancy;
  }
  EXPECT_EQ(DiscrepancyOf("UNKNOWN", "VACANT"), RoomHousekeeping::DISCREPANCY_UNSPECIFIED);
  EXPECT_EQ(DiscrepancyOf("UNKNOWN", "OCCUPIED"), RoomHousekeeping::DISCREPANCY_UNSPECIFIED);
}

TEST(ReadinessTest, AVacantInspectedRoomInOrderWithoutDiscrepancyIsReady) {
  using hotel::v1::RoomReadiness;
  using Reasons = std::vector<RoomReadiness::NotReadyReason>;
  const ReadinessFacts ready{"INSPECTED", "VACANT", "", false, false, true};
  EXPECT_EQ(NotReadyReasons(ready), Reasons{});
  ReadinessFacts room = ready;
  room.observed_occupancy = "VACANT";
  EXPECT_EQ(NotReadyReasons(room), Reasons{}) << "housekeeping agrees";
  room = ready;
  room.condition = "CLEAN";
  EXPECT_EQ(NotReadyReasons(room), Reasons{RoomReadiness::NOT_INSPECTED});
  room.inspection_required = false;
  EXPECT_EQ(NotReadyReasons(room), Reasons{}) << "CLEAN is enough without inspection";
  room.condition = "DIRTY";
  EXPECT_EQ(NotReadyReasons(room), Reasons{RoomReadiness::DIRTY});
  room = ready;
  room.out_of_order = true;
  room.out_of_service_today = true;
  EXPECT_EQ(NotReadyReasons(room), (Reasons{RoomReadiness::OUT_OF_ORDER, RoomReadiness::OUT_OF_SERVICE}));
  room = ready;
  room.observed_occupancy = "OCCUPIED";
  EXPECT_EQ(NotReadyReasons(room), Reasons{RoomReadiness::DISCREPANCY});
  room = ready;
  room.occupancy = "UNKNOWN";
  EXPECT_EQ(NotReadyReasons(room), Reasons{RoomReadiness::OCCUPANCY_UNKNOWN});
  room = {"CLEAN", "OCCUPIED", "VACANT", true, true, true};
  EXPECT_EQ(NotReadyReasons(room),
            (Reasons{RoomReadiness::OCCUPIED, RoomReadiness::NOT_INSPECTED, RoomReadiness::OUT_OF_ORDER,
                     RoomReadiness::OUT_OF_SERVICE, RoomReadiness::DISCREPANCY}))
      << "every reason, in enum order";
  RoomHousekeeping out;
  SetReadiness(ready, &out);
  EXPECT_TRUE(out.ready());
  SetReadiness(room, &out);
  EXPECT_FALSE(out.ready());
  EXPECT_EQ(out.not_ready_reasons_size(), 5);
}

TEST(ReadinessTest, TheWorkListTypesEachRoomAndSetsWithheldServiceApart) {
  using WorkItem = hotel::v1::HousekeepingOverview::WorkItem;
  EXPECT_EQ(WorkItemType("DIRTY", "VACANT", true), WorkItem::DEPARTURE);
  EXPECT_EQ(WorkItemType("DIRTY", "UNKNOWN", true), WorkItem::DEPARTURE);
  EXPECT_EQ(WorkItemType("DIRTY", "OCCUPIED", false), WorkItem::STAYOVER);
  EXPECT_EQ(WorkItemType("CLEAN", "VACANT", true), WorkItem::INSPECT);
  EXPECT_EQ(WorkItemType("CLEAN", "VACANT", false), std::nullopt);
  EXPECT_EQ(WorkItemType("INSPECTED", "VACANT", true), std::nullopt);
  EXPECT_TRUE(ServiceWithheld("DO_NOT_DISTURB"));
  EXPECT_TRUE(ServiceWithheld("SERVICE_DECLINED"));
  EXPECT_FALSE(ServiceWithheld("MAKE_UP_ROOM"));
  EXPECT_FALSE(ServiceWithheld("NONE"));
}

}  // namespace
}  // namespace hotel::housekeeping
