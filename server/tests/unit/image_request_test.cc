#include "images/image_request.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/errors.h"

namespace hotel::images {
namespace {

using hotel::v1::GalleryOrder;
using hotel::v1::Image;

constexpr char kId[] = "8e0df624-a0ad-4b3b-b480-e9d628d7dc80";
constexpr char kOtherId[] = "1c7e4a2e-9a58-4f7e-9c55-5bd0c2f1e0aa";

Image CurrentImage() {
  Image image;
  image.set_id(kId);
  image.set_alt_text("Suite, living room");
  image.set_sort_order(2);
  image.set_width(1600);
  image.set_height(1067);
  image.set_room_type_id("BER1-STE");
  image.set_etag(ImageEtag(kId, 3));
  return image;
}

google::protobuf::RepeatedPtrField<Image> Gallery(std::initializer_list<std::pair<const char*, int64_t>> images) {
  google::protobuf::RepeatedPtrField<Image> gallery;
  for (const auto& [id, version] : images) {
    Image* image = gallery.Add();
    image->set_id(id);
    image->set_etag(ImageEtag(id, version));
  }
  return gallery;
}

TEST(PlanImageUpdate, ChangesTheNamedFieldsOnly) {
  Image patch;
  patch.set_alt_text("  Suite, bedroom  ");
  patch.set_sort_order(7);
  auto plan = PlanImageUpdate(CurrentImage(), patch, {"alt_text"}, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->changed);
  EXPECT_EQ(plan->updated.alt_text(), "Suite, bedroom");
  EXPECT_EQ(plan->updated.sort_order(), 2);
}

TEST(PlanImageUpdate, SortOrderZeroIsAValueWhenTheMaskNamesIt) {
  Image patch;
  auto plan = PlanImageUpdate(CurrentImage(), patch, {"sort_order"}, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->changed);
  EXPECT_EQ(plan->updated.sort_order(), 0);
}

TEST(PlanImageUpdate, SameValuesChangeNothing) {
  Image patch;
  patch.set_alt_text("Suite, living room");
  patch.set_sort_order(2);
  auto plan = PlanImageUpdate(CurrentImage(), patch, {}, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->changed);
}

TEST(PlanImageUpdate, BadFieldsAreNamed) {
  Image patch;
  patch.set_alt_text(std::string(501, 'x'));
  patch.set_sort_order(-1);
  patch.set_room_type_id("BER1-STD");
  auto plan = PlanImageUpdate(CurrentImage(), patch, {"alt_text", "sort_order", "room_type_id", "nope"}, "");
  ASSERT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  auto fields = ViolatedFields(plan.status());
  std::sort(fields.begin(), fields.end());
  EXPECT_EQ(fields, (std::vector<std::string>{"alt_text", "room_type_id", "sort_order", "update_mask"}));
  Image blank;
  blank.set_alt_text("   ");
  EXPECT_EQ(ViolatedFields(PlanImageUpdate(CurrentImage(), blank, {"alt_text"}, "").status()),
            std::vector<std::string>{"alt_text"});
}

TEST(PlanImageUpdate, OutputOnlyFieldsAndTheCurrentOwnerAreIgnored) {
  Image patch = CurrentImage();
  patch.set_width(1);
  patch.set_alt_text("New text");
  auto plan = PlanImageUpdate(CurrentImage(), patch, {}, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->updated.width(), 1600);
  EXPECT_EQ(plan->updated.alt_text(), "New text");
}

TEST(PlanImageUpdate, AStaleEtagIsRefusedFromTheBodyOrIfMatch) {
  Image patch;
  patch.set_alt_text("New text");
  patch.set_etag(ImageEtag(kId, 2));
  auto from_body = PlanImageUpdate(CurrentImage(), patch, {"alt_text"}, "");
  EXPECT_EQ(from_body.status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(ErrorReason(from_body.status()), "ETAG_MISMATCH");
  patch.clear_etag();
  EXPECT_EQ(PlanImageUpdate(CurrentImage(), patch, {"alt_text"}, "\"" + ImageEtag(kId, 2) + "\"").status().code(),
            absl::StatusCode::kAborted);
  EXPECT_TRUE(PlanImageUpdate(CurrentImage(), patch, {"alt_text"}, "\"" + ImageEtag(kId, 3) + "\"").ok());
}

TEST(ParseGalleryOrder, TakesUuidsOnceEachLowerCased) {
  GalleryOrder order;
  order.add_image_ids("8E0DF624-A0AD-4B3B-B480-E9D628D7DC80");
  order.add_image_ids(kOtherId);
  auto ids = ParseGalleryOrder(order);
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(*ids, (std::vector<std::string>{kId, kOtherId}));
}

TEST(ParseGalleryOrder, EmptyRepeatedOrMalformedIdsNameImageIds) {
  GalleryOrder empty;
  EXPECT_EQ(ViolatedFields(ParseGalleryOrder(empty).status()), std::vector<std::string>{"image_ids"});
  GalleryOrder repeated;
  repeated.add_image_ids(kId);
  repeated.add_image_ids("8E0DF624-A0AD-4B3B-B480-E9D628D7DC80");
  EXPECT_EQ(ViolatedFields(ParseGalleryOrder(repeated).status()), std::vector<std::string>{"image_ids"});
  GalleryOrder malformed;
  malformed.add_image_ids("photo-1");
  EXPECT_EQ(ViolatedFields(ParseGalleryOrder(malformed).status()), std::vector<std::string>{"image_ids"});
}

TEST(CheckGalleryOrder, TheIdsMustBeExactlyTheGallerys) {
  const auto gallery = Gallery({{kId, 1}, {kOtherId, 1}});
  EXPECT_TRUE(CheckGalleryOrder({kOtherId, kId}, gallery).ok());
  const auto missing = CheckGalleryOrder({kOtherId}, gallery);
  EXPECT_EQ(ViolatedFields(missing), std::vector<std::string>{"image_ids"});
  EXPECT_NE(FieldViolations(missing)[0].description.find(kId), std::string::npos);
  const char* stranger = "00000000-0000-4000-8000-000000000000";
  const auto unknown = CheckGalleryOrder({kOtherId, kId, stranger}, gallery);
  EXPECT_NE(FieldViolations(unknown)[0].description.find(stranger), std::string::npos);
}

TEST(GalleryEtag, ChangesWithTheOrderTheMembersAndTheirVersions) {
  const std::string etag = GalleryEtag(Gallery({{kId, 1}, {kOtherId, 1}}));
  EXPECT_EQ(etag, GalleryEtag(Gallery({{kId, 1}, {kOtherId, 1}})));
  EXPECT_NE(etag, GalleryEtag(Gallery({{kOtherId, 1}, {kId, 1}})));
  EXPECT_NE(etag, GalleryEtag(Gallery({{kId, 1}, {kOtherId, 2}})));
  EXPECT_NE(etag, GalleryEtag(Gallery({{kId, 1}})));
}

}  // namespace
}  // namespace hotel::images
