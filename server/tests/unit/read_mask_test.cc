#include "api/read_mask.h"

#include <gtest/gtest.h>

#include "api/request_fields.h"
#include "common/errors.h"
#include "db/sql.h"
#include "hotel/v1/maintenance.pb.h"
#include "hotel/v1/rooms.pb.h"

namespace hotel::api {
namespace {

using hotel::v1::Issue;
using hotel::v1::ListRoomsResponse;
using hotel::v1::Room;

Room SampleRoom() {
  Room room;
  room.set_property_id("BER1");
  room.set_number("101");
  room.set_floor(1);
  room.set_available(true);
  room.set_etag("abc");
  room.add_amenities("wifi");
  room.mutable_update_time()->set_seconds(1700000000);
  auto* image = room.add_images();
  image->set_id("i1");
  image->set_alt_text("Bed");
  image->mutable_variants();
  room.add_images()->set_id("i2");
  return room;
}

ReadMask MaskOf(std::vector<std::string> paths, const google::protobuf::Descriptor& response) {
  auto mask = ReadMask::FromPaths(paths, response);
  EXPECT_TRUE(mask.ok()) << mask.status();
  return *mask;
}

TEST(ReadMask, NoPathsOrAStarKeepsEverything) {
  for (const auto& paths : std::vector<std::vector<std::string>>{{}, {"*"}, {"number", "*"}}) {
    ReadMask mask = MaskOf(paths, *Room::descriptor());
    EXPECT_TRUE(mask.all());
    Room room = SampleRoom();
    mask.Apply(&room);
    EXPECT_EQ(room.DebugString(), SampleRoom().DebugString());
  }
}

TEST(ReadMask, KeepsOnlyTheNamedFields) {
  Room room = SampleRoom();
  MaskOf({"number", "available"}, *Room::descriptor()).Apply(&room);
  Room want;
  want.set_number("101");
  want.set_available(true);
  EXPECT_EQ(room.DebugString(), want.DebugString());
}

TEST(ReadMask, NestedPathsApplyToEveryElementOfARepeatedMessage) {
  Room room = SampleRoom();
  MaskOf({"images.id", "update_time.seconds"}, *Room::descriptor()).Apply(&room);
  ASSERT_EQ(room.images_size(), 2);
  EXPECT_EQ(room.images(0).id(), "i1");
  EXPECT_EQ(room.images(0).alt_text(), "");
  EXPECT_FALSE(room.images(0).has_variants());
  EXPECT_EQ(room.images(1).id(), "i2");
  EXPECT_EQ(room.update_time().seconds(), 1700000000);
  EXPECT_EQ(room.number(), "");
}

TEST(ReadMask, AShorterPathKeepsTheWholeFieldInEitherOrder) {
  for (const auto& paths : std::vector<std::vector<std::string>>{{"images", "images.id"}, {"images.id", "images"}}) {
    Room room = SampleRoom();
    ReadMask mask = MaskOf(paths, *Room::descriptor());
    mask.Apply(&room);
    EXPECT_EQ(room.images(0).alt_text(), "Bed");
    EXPECT_TRUE(room.images(0).has_variants());
    EXPECT_EQ(mask.ResponsePaths(), "images");
  }
}

TEST(ReadMask, UnknownPathsAreNamedEach) {
  auto mask = ReadMask::FromPaths({"number", "nmber", "images.nope", "floor.x", ""}, *Room::descriptor());
  ASSERT_EQ(mask.status().code(), absl::StatusCode::kInvalidArgument);
  const auto violations = FieldViolations(mask.status());
  ASSERT_EQ(violations.size(), 4u);
  for (const auto& v : violations) EXPECT_EQ(v.field, "read_mask");
  EXPECT_EQ(violations[0].description, "\"nmber\" is not a field of hotel.v1.Room");
  EXPECT_EQ(violations[1].description, "\"images.nope\" is not a field of hotel.v1.Room");
  EXPECT_EQ(violations[2].description, "\"floor.x\" is not a field of hotel.v1.Room");
  EXPECT_EQ(violations[3].description, "\"\" is not a field of hotel.v1.Room");
}

TEST(ReadMask, AListResponseMasksItsElementsAndKeepsItsOwnFields) {
  ListRoomsResponse page;
  *page.add_data() = SampleRoom();
  *page.add_data() = SampleRoom();
  page.set_next_page_token("t");
  page.set_change_cursor("c");
  ReadMask mask = MaskOf({"number", "available"}, *ListRoomsResponse::descriptor());
  ASSERT_NE(mask.collection(), nullptr);
  EXPECT_EQ(mask.collection()->name(), "data");
  mask.Apply(&page);
  EXPECT_EQ(page.data(1).number(), "101");
  EXPECT_EQ(page.data(1).floor(), 0);
  EXPECT_EQ(page.next_page_token(), "t");
  EXPECT_EQ(mask.ResponsePaths(), "data.available,data.number,next_page_token,change_cursor");
  // Paths are the resource's, not the response's.
  EXPECT_FALSE(ReadMask::FromPaths({"next_page_token"}, *ListRoomsResponse::descriptor()).ok());
}

TEST(ReadMask, IsReadFromTheRequestsReadMaskField) {
  hotel::v1::BatchGetIssuesRequest request;
  request.mutable_read_mask()->add_paths("status");
  request.mutable_read_mask()->add_paths("timeline.type");
  auto mask = ReadMask::Of(request, *hotel::v1::BatchGetIssuesResponse::descriptor());
  ASSERT_TRUE(mask.ok());
  EXPECT_EQ(mask->ResponsePaths(), "issues.status,issues.timeline.type");
  EXPECT_TRUE(mask->Keeps("status"));
  EXPECT_FALSE(mask->Keeps("etag"));
  // A request without the field, or with it unset: everything.
  EXPECT_TRUE(ReadMask::Of(hotel::v1::GetPropertyRequest(), *Issue::descriptor())->all());
  EXPECT_TRUE(ReadMask::Of(hotel::v1::GetIssueRequest(), *Issue::descriptor())->all());
}

TEST(BatchKeys, OneToAHundredEachOnce) {
  FieldErrors ok;
  CheckBatchKeys("numbers", {"101", "102"}, ValidateRoomNumber, ok);
  EXPECT_TRUE(ok.empty());

  FieldErrors none;
  CheckBatchKeys("numbers", {}, ValidateRoomNumber, none);
  EXPECT_EQ(ViolatedFields(none.ToStatus()), std::vector<std::string>{"numbers"});

  FieldErrors too_many;
  CheckBatchKeys("numbers", std::vector<std::string>(kMaxBatchSize + 1, "101"), ValidateRoomNumber, too_many);
  EXPECT_EQ(FieldViolations(too_many.ToStatus()).at(0).description, "takes at most 100 per call, got 101");

  FieldErrors twice;
  CheckBatchKeys("numbers", {"101", "1 2", "101"}, ValidateRoomNumber, twice);
  const auto violations = FieldViolations(twice.ToStatus());
  ASSERT_EQ(violations.size(), 2u);
  EXPECT_EQ(violations[0].field, "numbers");
  EXPECT_EQ(violations[1].description, "101 is asked more than once");
}

TEST(BatchKeys, MissingOnesAreNamedInTheOrderAsked) {
  EXPECT_EQ(db::MissingKeys({"3", "1", "2", "4"}, {"1", "2"}), (std::vector<std::string>{"3", "4"}));
  EXPECT_EQ(db::DoNotExist("room", {"7"}), "room 7 does not exist");
  EXPECT_EQ(db::DoNotExist("room", {"7", "8"}), "rooms 7, 8 do not exist");
}

}  // namespace
}  // namespace hotel::api
