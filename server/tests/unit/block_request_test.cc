// Room block requests: every bad field named, batches naming their items, date ranges, the
// overlap of half-open ranges and the update plan.
#include "blocks/block_request.h"

#include <gtest/gtest.h>

#include "common/errors.h"

namespace hotel::blocks {
namespace {

using hotel::v1::RoomBlock;

hotel::v1::CreateRoomBlockRequest Valid() {
  hotel::v1::CreateRoomBlockRequest request;
  request.set_property_id("BER1");
  request.set_room_number("312");
  request.set_type(RoomBlock::OUT_OF_ORDER);
  request.set_start_date("2026-12-03");
  request.set_end_date("2026-12-10");
  return request;
}

TEST(BlockRequestTest, AValidCreateDefaultsTheActor) {
  auto block = ValidateCreateRoomBlock(Valid());
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_EQ(block->type, "OUT_OF_ORDER");
  EXPECT_EQ(block->updated_by, "api");
  EXPECT_FALSE(block->request_hash.empty());
}

TEST(BlockRequestTest, EveryBadFieldIsNamed) {
  hotel::v1::CreateRoomBlockRequest request = Valid();
  request.set_room_number("3 12");
  request.clear_type();
  request.set_start_date("2026-02-30");
  request.set_issue_id("x");
  request.set_request_id("no spaces");
  auto block = ValidateCreateRoomBlock(request);
  EXPECT_EQ(ViolatedFields(block.status()),
            (std::vector<std::string>{"room_number", "type", "start_date", "issue_id", "request_id"}));
  request = Valid();
  request.set_end_date("2026-12-03");
  EXPECT_EQ(ViolatedFields(ValidateCreateRoomBlock(request).status()), std::vector<std::string>{"end_date"});
  request.clear_end_date();  // no end
  EXPECT_TRUE(ValidateCreateRoomBlock(request).ok());
  request.clear_property_id();
  EXPECT_EQ(ViolatedFields(ValidateCreateRoomBlock(request).status()), std::vector<std::string>{"property_id"});
}

TEST(BlockRequestTest, HalfOpenRangesOverlapOnlyWhenTheyShareADate) {
  EXPECT_TRUE(DatesOverlap("2026-12-01", "2026-12-05", "2026-12-04", "2026-12-06"));
  EXPECT_FALSE(DatesOverlap("2026-12-01", "2026-12-05", "2026-12-05", "2026-12-06"));
  EXPECT_TRUE(DatesOverlap("2026-12-01", "", "2027-06-01", "2027-06-02"));
  EXPECT_FALSE(DatesOverlap("2026-12-01", "2026-12-02", "2026-11-01", "2026-12-01"));
  EXPECT_TRUE(DatesOverlap("2026-12-01", "", "2026-11-01", ""));
}

TEST(BlockRequestTest, ABatchNamesItsItemsAndTheirOverlaps) {
  hotel::v1::BatchCreateRoomBlocksRequest batch;
  EXPECT_EQ(ViolatedFields(ValidateBatchCreateRoomBlocks(batch).status()), std::vector<std::string>{"requests"});
  *batch.add_requests() = Valid();
  *batch.add_requests() = Valid();
  batch.mutable_requests(1)->set_start_date("2026-12-09");
  *batch.add_requests() = Valid();
  batch.mutable_requests(2)->set_type(RoomBlock::OUT_OF_SERVICE);  // may overlap
  *batch.add_requests() = Valid();
  batch.mutable_requests(3)->set_end_date("bad");
  EXPECT_EQ(ViolatedFields(ValidateBatchCreateRoomBlocks(batch).status()),
            (std::vector<std::string>{"requests[1]", "requests[3].end_date"}));
  batch.mutable_requests(1)->set_room_number("313");
  batch.mutable_requests(3)->set_end_date("2026-12-11");
  batch.mutable_requests(3)->set_room_number("314");
  auto blocks = ValidateBatchCreateRoomBlocks(batch);
  ASSERT_TRUE(blocks.ok()) << blocks.status();
  EXPECT_EQ(blocks->size(), 4u);
}

TEST(BlockRequestTest, ListsAndAvailabilityCheckTheirRanges) {
  hotel::v1::ListRoomBlocksRequest list;
  list.set_from_date("2026-12-10");
  list.set_to_date("2026-12-01");
  EXPECT_EQ(ViolatedFields(ParseListRoomBlocks(list).status()), std::vector<std::string>{"to_date"});
  list.clear_to_date();
  EXPECT_TRUE(ParseListRoomBlocks(list).ok());

  hotel::v1::GetPropertyAvailabilityRequest availability;
  availability.set_property_id("BER1");
  availability.set_from_date("2024-01-01");
  availability.set_to_date("2025-01-01");  // 366 days: a leap year
  EXPECT_TRUE(ParseGetPropertyAvailability(availability).ok());
  availability.set_to_date("2025-01-02");
  EXPECT_EQ(ViolatedFields(ParseGetPropertyAvailability(availability).status()), std::vector<std::string>{"to_date"});
  availability.clear_from_date();
  EXPECT_EQ(ViolatedFields(ParseGetPropertyAvailability(availability).status()), std::vector<std::string>{"from_date"});
}

TEST(BlockRequestTest, AnUpdateChangesDatesAndReasonOnly) {
  RoomBlock current;
  current.set_id("b");
  current.set_property_id("BER1");
  current.set_room_number("312");
  current.set_type(RoomBlock::OUT_OF_ORDER);
  current.set_start_date("2026-12-03");
  current.set_end_date("2026-12-10");
  current.set_etag("e1");
  RoomBlock patch;
  patch.set_start_date("2026-12-11");
  EXPECT_EQ(ViolatedFields(PlanRoomBlockUpdate(current, patch, {"start_date"}, "").status()),
            std::vector<std::string>{"end_date"});
  patch.set_end_date("");
  auto plan = PlanRoomBlockUpdate(current, patch, {"start_date", "end_date"}, "e1");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->changed);
  EXPECT_EQ(plan->updated.end_date(), "");
  EXPECT_EQ(ErrorReason(PlanRoomBlockUpdate(current, patch, {"start_date"}, "e0").status()), "ETAG_MISMATCH");
  patch.set_room_number("313");
  EXPECT_EQ(ViolatedFields(PlanRoomBlockUpdate(current, patch, {"room_number"}, "").status()),
            std::vector<std::string>{"room_number"});
  current.set_cancelled(true);
  EXPECT_EQ(ErrorReason(PlanRoomBlockUpdate(current, patch, {"start_date"}, "").status()), "ROOM_BLOCK_CANCELLED");
}

}  // namespace
}  // namespace hotel::blocks
