#include "rooms/room_write_request.h"

#include <gtest/gtest.h>

#include "api/etag.h"
#include "common/errors.h"
#include "rooms/room_sql.h"

namespace hotel::rooms {
namespace {

using hotel::v1::CreatePropertyRequest;
using hotel::v1::CreateRoomRequest;
using hotel::v1::CreateRoomTypeRequest;
using hotel::v1::Property;
using hotel::v1::Room;
using hotel::v1::RoomType;

std::vector<std::string> BadFields(const absl::Status& status) { return ViolatedFields(status); }

CreatePropertyRequest GoodProperty() {
  CreatePropertyRequest request;
  request.set_id("MUC1");
  request.set_name(" Hotel Munich ");
  request.set_time_zone("Europe/Berlin");
  request.set_city("Munich");
  request.set_country_code("DE");
  return request;
}

Room CurrentRoom() {
  Room room;
  room.set_property_id("BER1");
  room.set_number("101");
  room.set_floor(1);
  room.set_room_type_id("BER1-STD");
  room.add_extra_amenities("balcony");
  room.set_etag(RoomEtag("BER1", "101", 4, 2));
  return room;
}

TEST(ValidateCreateProperty, TrimsDefaultsToEnabledAndFingerprintsTheRequest) {
  auto property = ValidateCreateProperty(GoodProperty());
  ASSERT_TRUE(property.ok()) << property.status();
  EXPECT_EQ(property->record.name(), "Hotel Munich");
  EXPECT_TRUE(property->record.enabled());
  EXPECT_EQ(property->actor, "api");
  CreatePropertyRequest disabled = GoodProperty();
  disabled.set_enabled(false);
  auto second = ValidateCreateProperty(disabled);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->record.enabled());
  EXPECT_NE(second->request_hash, property->request_hash);
}

TEST(ValidateCreateProperty, NamesEveryBadField) {
  CreatePropertyRequest request;
  request.set_id("m1");
  request.set_time_zone("Mars/Olympus_Mons");
  request.set_country_code("deu");
  request.set_request_id("not a request id");
  auto property = ValidateCreateProperty(request);
  ASSERT_FALSE(property.ok());
  EXPECT_EQ(BadFields(property.status()),
            (std::vector<std::string>{"id", "name", "city", "time_zone", "country_code", "request_id"}));
  request = GoodProperty();
  request.set_time_zone("localtime");
  EXPECT_EQ(BadFields(ValidateCreateProperty(request).status()), std::vector<std::string>{"time_zone"});
}

TEST(ValidateCreateRoomType, BuildsTheIdAndNormalizesAmenities) {
  CreateRoomTypeRequest request;
  request.set_property_id("MUC1");
  request.set_code("DLX");
  request.set_name("Deluxe");
  request.set_category(RoomType::DELUXE);
  request.add_amenities("wifi");
  request.add_amenities("bathtub");
  request.add_amenities("wifi");
  request.set_size_sqm(30.04);
  request.set_max_guests(3);
  request.set_bed_type("KING");
  auto room_type = ValidateCreateRoomType(request);
  ASSERT_TRUE(room_type.ok()) << room_type.status();
  EXPECT_EQ(room_type->record.id(), "MUC1-DLX");
  EXPECT_EQ(std::vector<std::string>(room_type->record.amenities().begin(), room_type->record.amenities().end()),
            (std::vector<std::string>{"bathtub", "wifi"}));
  EXPECT_DOUBLE_EQ(room_type->record.size_sqm(), 30.0);

  request.set_code("dlx");
  request.set_category(static_cast<RoomType::Category>(42));
  request.add_amenities("jacuzzi");
  request.set_size_sqm(-1);
  request.set_max_guests(0);
  request.clear_bed_type();
  EXPECT_EQ(BadFields(ValidateCreateRoomType(request).status()),
            (std::vector<std::string>{"code", "category", "amenities", "size_sqm", "max_guests", "bed_type"}));
}

TEST(ValidateCreateRoom, TheRoomTypeMustBeOfTheSameProperty) {
  CreateRoomRequest request;
  request.set_property_id("MUC1");
  request.set_number("101");
  request.set_floor(0);
  request.set_room_type_id("MUC1-STD");
  EXPECT_TRUE(ValidateCreateRoom(request).ok());
  request.set_room_type_id("BER1-STD");
  request.set_floor(-1);
  request.add_extra_amenities("hot_tub");
  request.set_number("1 01");
  EXPECT_EQ(BadFields(ValidateCreateRoom(request).status()),
            (std::vector<std::string>{"number", "floor", "room_type_id", "extra_amenities"}));
}

TEST(PlanRoomUpdate, AppliesTheMaskIncludingZeroValues) {
  Room patch;
  patch.set_floor(0);
  patch.set_room_type_id("BER1-DLX");  // not in the mask: ignored
  auto plan = PlanRoomUpdate(CurrentRoom(), patch, {"floor"}, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->changed);
  EXPECT_EQ(plan->updated.floor(), 0);
  EXPECT_EQ(plan->updated.room_type_id(), "BER1-STD");
  EXPECT_FALSE(plan->needs_room_type);
  EXPECT_EQ(plan->actor, "api");
}

TEST(PlanRoomUpdate, SameValuesChangeNothing) {
  Room patch;
  patch.set_floor(1);
  patch.add_extra_amenities("balcony");
  auto plan = PlanRoomUpdate(CurrentRoom(), patch, {"floor", "extra_amenities", "amenities", "category"}, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->changed);
}

TEST(PlanRoomUpdate, RetiringAndNewRoomTypes) {
  Room patch;
  patch.set_retired(true);
  auto plan = PlanRoomUpdate(CurrentRoom(), patch, {}, "");  // gRPC without a mask: the set fields
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->retiring && plan->changed);
  EXPECT_FALSE(plan->needs_room_type);

  Room retired = CurrentRoom();
  retired.set_retired(true);
  Room back;
  auto plan_back = PlanRoomUpdate(retired, back, {"retired"}, "");
  ASSERT_TRUE(plan_back.ok());
  EXPECT_TRUE(plan_back->needs_room_type) << "an active room again needs an active type";

  Room moved;
  moved.set_room_type_id("BER1-DLX");
  auto plan_moved = PlanRoomUpdate(CurrentRoom(), moved, {"room_type_id"}, "");
  ASSERT_TRUE(plan_moved.ok());
  EXPECT_TRUE(plan_moved->needs_room_type);
}

TEST(PlanRoomUpdate, ImmutableUnknownAndBadFieldsAreNamed) {
  Room patch;
  patch.set_number("102");
  patch.set_floor(-3);
  patch.set_room_type_id("LIS1-STD");
  auto plan = PlanRoomUpdate(CurrentRoom(), patch, {"number", "floor", "room_type_id", "colour"}, "");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(BadFields(plan.status()), (std::vector<std::string>{"number", "update_mask", "floor", "room_type_id"}));
  Room same_address;
  same_address.set_property_id("BER1");
  same_address.set_number("101");
  EXPECT_TRUE(PlanRoomUpdate(CurrentRoom(), same_address, {"property_id", "number"}, "").ok());
}

TEST(PlanRoomUpdate, AStaleEtagIsRefusedBeforeAnythingIsMerged) {
  Room patch;
  patch.set_floor(5);
  patch.set_etag(RoomEtag("BER1", "101", 3, 2));
  auto plan = PlanRoomUpdate(CurrentRoom(), patch, {"floor", "etag"}, "");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(ErrorReason(plan.status()), "ETAG_MISMATCH");
  patch.clear_etag();
  EXPECT_EQ(ErrorReason(PlanRoomUpdate(CurrentRoom(), patch, {"floor"}, "\"0000000000000000\"").status()),
            "ETAG_MISMATCH");
  auto ok = PlanRoomUpdate(CurrentRoom(), patch, {"floor"}, absl::StrCat("W/\"", CurrentRoom().etag(), "\""));
  EXPECT_TRUE(ok.ok()) << ok.status();
}

TEST(PlanRoomTypeUpdate, RetiringAndActor) {
  RoomType current;
  current.set_id("BER1-STD");
  current.set_property_id("BER1");
  current.set_code("STD");
  current.set_name("Standard");
  RoomType patch;
  patch.set_retired(true);
  patch.set_name("  Standard (old wing) ");
  patch.set_updated_by(" ops ");
  auto plan = PlanRoomTypeUpdate(current, patch, {"retired", "name", "updated_by"}, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->retiring);
  EXPECT_EQ(plan->updated.name(), "Standard (old wing)");
  EXPECT_EQ(plan->actor, "ops");
  patch.set_code("DLX");
  EXPECT_EQ(BadFields(PlanRoomTypeUpdate(current, patch, {"code"}, "").status()), std::vector<std::string>{"code"});
}

TEST(PlanPropertyUpdate, DisablingAndBadValues) {
  Property current;
  current.set_id("BER1");
  current.set_enabled(true);
  current.set_time_zone("Europe/Berlin");
  Property patch;
  patch.set_enabled(false);
  auto plan = PlanPropertyUpdate(current, patch, {"enabled"}, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->changed);
  EXPECT_FALSE(plan->updated.enabled());
  patch.set_time_zone("Europe/Nowhere");
  patch.set_name("");
  EXPECT_EQ(BadFields(PlanPropertyUpdate(current, patch, {"time_zone", "name"}, "").status()),
            (std::vector<std::string>{"name", "time_zone"}));
}

TEST(Etags, RoomEtagsFollowBothVersionsAndIssueEtagsKeepTheirShape) {
  EXPECT_NE(RoomEtag("BER1", "101", 1, 1), RoomEtag("BER1", "101", 2, 1));
  EXPECT_NE(RoomEtag("BER1", "101", 1, 1), RoomEtag("BER1", "101", 1, 2));
  EXPECT_NE(RoomEtag("BER1", "101", 1, 1), RoomEtag("BER1", "102", 1, 1));
  EXPECT_NE(PropertyEtag("BER1", 1), RoomTypeEtag("BER1", 1));
  EXPECT_EQ(RoomEtag("BER1", "101", 1, 1).size(), 16u);
  // What the representations derive from other rows changes their etags too (GET's ETag is the field).
  EXPECT_NE(RoomEtag("BER1", "101", 1, 1, 0, 0), RoomEtag("BER1", "101", 1, 1, 1, 0));
  EXPECT_NE(RoomEtag("BER1", "101", 1, 1, 0, 0), RoomEtag("BER1", "101", 1, 1, 0, 1));
  EXPECT_NE(RoomTypeEtag("BER1-STD", 1, 2), RoomTypeEtag("BER1-STD", 1, 3));
  EXPECT_NE(PropertyEtag("BER1", 1, 10, 2), PropertyEtag("BER1", 1, 11, 2));
  EXPECT_NE(PropertyEtag("BER1", 1, 10, 2), PropertyEtag("BER1", 1, 10, 3));
  EXPECT_TRUE(api::EtagMatches("W/\"abc\", \"def\"", "def"));
  EXPECT_TRUE(api::EtagMatches("*", "def"));
  EXPECT_FALSE(api::EtagMatches("\"abc\"", "def"));
  EXPECT_TRUE(api::CheckEtags("", "", "x", "room").ok());
  EXPECT_EQ(api::CheckEtags("", "y", "x", "room").message(),
            "the room was changed since the If-Match etag was read; fetch it again and retry");
}

TEST(Etags, ARoomsHttpEtagJoinsItsHousekeepingsAndEachWriteChecksItsOwnPart) {
  hotel::v1::Room room;
  room.set_etag(RoomEtag("BER1", "101", 1, 1));
  const std::string housekeeping = HousekeepingEtag("BER1", "101", 0);
  EXPECT_NE(housekeeping, room.etag());
  EXPECT_NE(HousekeepingEtag("BER1", "101", 1), housekeeping);
  EXPECT_EQ(api::RepresentationEtag(room), room.etag()) << "no housekeeping: the etag alone";
  room.mutable_housekeeping()->set_etag(housekeeping);
  const std::string whole = api::RepresentationEtag(room);
  EXPECT_EQ(whole, room.etag() + "." + housekeeping);
  // The GET's ETag, sent back as If-Match: the room data write checks its part, the housekeeping
  // write its own; a stale part fails, the other part never stands in for it.
  EXPECT_TRUE(api::EtagMatches("\"" + whole + "\"", room.etag()));
  EXPECT_TRUE(api::EtagMatches(whole, housekeeping));
  EXPECT_FALSE(api::EtagMatches(whole, RoomEtag("BER1", "101", 2, 1)));
  EXPECT_FALSE(api::EtagMatches(room.etag(), housekeeping));
  EXPECT_FALSE(api::EtagMatches(".", ""));
  // Resources without parts of their own keep their etag as their ETag.
  hotel::v1::Property property;
  property.set_etag(PropertyEtag("BER1", 1));
  EXPECT_EQ(api::RepresentationEtag(property), property.etag());
}

}  // namespace
}  // namespace hotel::rooms
