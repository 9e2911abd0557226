// Image management against a real PostgreSQL (docs/images.md#managing-images): updates with
// etags, reorders, removals; what they do to the owner's etag, the change log and the released
// file keys the store's garbage collection reads; and many writers on one gallery.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/errors.h"
#include "images/image_repository.h"
#include "images/image_request.h"
#include "rooms/room_repository.h"
#include "test_database.h"

namespace hotel::images {
namespace {

using hotel::v1::Image;
using Gallery = google::protobuf::RepeatedPtrField<Image>;

constexpr char kCdn[] = "https://cdn.test/hotel";
constexpr char kRoomType[] = "BER1-STD";

class ImageManagementTest : public ::testing::Test {
 protected:
  ImageManagementTest() : images_(db().pool(), kCdn), rooms_(db().pool(), kCdn) {
    db().Exec("DELETE FROM images");
    db().Exec("DELETE FROM image_files_released");
    db().Exec("DELETE FROM change_staging");
  }

  static testing::TestDatabase& db() { return testing::TestDatabase::Get(); }

  // A registered image whose files are named after seed (no rendering: the rows are what matter).
  Image Add(const ImageOwner& owner, int seed) {
    NewImage image;
    image.owner = owner;
    image.content_sha256 = std::string(63, 'a') + static_cast<char>('0' + seed);
    image.alt_text = absl::StrCat("Picture ", seed);
    image.size = {1600, 1067};
    image.files = {{"original", "jpeg", absl::StrCat("img/aa/original", seed, ".jpg"), 1600, 1067, 1000},
                   {"thumbnail", "jpeg", absl::StrCat("img/aa/thumb", seed, ".jpg"), 200, 133, 100}};
    auto registered = images_.Register(image);
    EXPECT_TRUE(registered.ok()) << registered.status();
    return registered.ok() ? registered->image : Image();
  }

  Gallery List(const ImageOwner& owner) {
    Gallery gallery;
    EXPECT_TRUE(images_.List(owner, &gallery).ok());
    return gallery;
  }

  static std::vector<std::string> Ids(const Gallery& gallery) {
    std::vector<std::string> ids;
    for (const auto& image : gallery) ids.push_back(image.id());
    return ids;
  }

  std::string RoomTypeEtag() {
    hotel::v1::RoomType room_type;
    EXPECT_TRUE(rooms_.GetRoomType(kRoomType, &room_type).ok());
    return room_type.etag();
  }

  // The staged IMAGE changes, oldest first: "KIND id [fields]" each.
  std::vector<std::string> ImageChanges() {
    const std::string all = db().Scalar(
        "SELECT string_agg(kind || ' ' || resource_id || ' ' || array_to_string(changed_fields, ','), ';' "
        "ORDER BY staging_id) FROM change_staging WHERE resource_type = 'IMAGE'");
    if (all.empty()) return {};
    std::vector<std::string> changes = absl::StrSplit(all, ';');
    return changes;
  }

  ImageRepository images_;
  rooms::RoomRepository rooms_;
};

TEST_F(ImageManagementTest, GetReadsOneImageWithItsOwnerAndEtag) {
  const Image added = Add(ImageOwner::Room("BER1", "101"), 1);
  Image image;
  ASSERT_TRUE(images_.Get(added.id(), &image).ok());
  EXPECT_EQ(image.property_id(), "BER1");
  EXPECT_EQ(image.room_number(), "101");
  EXPECT_EQ(image.room_type_id(), "");
  EXPECT_EQ(image.etag(), ImageEtag(added.id(), 1));
  EXPECT_EQ(image.variants().original().url(), "https://cdn.test/hotel/img/aa/original1.jpg");
  const auto missing = images_.Get("00000000-0000-4000-8000-000000000000", &image);
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ErrorReason(missing), "IMAGE_NOT_FOUND");
}

TEST_F(ImageManagementTest, UpdateHonoursTheEtagAndChangesTheOwnersEtag) {
  const auto owner = ImageOwner::RoomType(kRoomType);
  const Image added = Add(owner, 1);
  const std::string owner_etag = RoomTypeEtag();
  Image patch;
  patch.set_alt_text("Standard room, window side");
  Image updated;
  ASSERT_TRUE(images_.Update(added.id(), patch, {"alt_text"}, "\"" + added.etag() + "\"", &updated).ok());
  EXPECT_EQ(updated.alt_text(), "Standard room, window side");
  EXPECT_NE(updated.etag(), added.etag());
  EXPECT_NE(RoomTypeEtag(), owner_etag);

  // The etag read before that update is stale now: nothing changes.
  patch.set_alt_text("Lost update");
  const auto stale = images_.Update(added.id(), patch, {"alt_text"}, "\"" + added.etag() + "\"", &updated);
  EXPECT_EQ(stale.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(ErrorReason(stale), "ETAG_MISMATCH");
  EXPECT_EQ(List(owner)[0].alt_text(), "Standard room, window side");

  // The same values again: no new version, no change.
  const std::string etag = List(owner)[0].etag();
  patch.set_alt_text("Standard room, window side");
  ASSERT_TRUE(images_.Update(added.id(), patch, {"alt_text"}, "", &updated).ok());
  EXPECT_EQ(updated.etag(), etag);
  EXPECT_EQ(ImageChanges(), (std::vector<std::string>{absl::StrCat("CREATED ", added.id(), " "),
                                                      absl::StrCat("UPDATED ", added.id(), " alt_text")}));
}

TEST_F(ImageManagementTest, ReorderSetsPositionsAndRefusesAnythingButTheGallerysIds) {
  const auto owner = ImageOwner::RoomType(kRoomType);
  const Image a = Add(owner, 1), b = Add(owner, 2), c = Add(owner, 3);
  EXPECT_EQ(Ids(List(owner)), (std::vector<std::string>{a.id(), b.id(), c.id()}));
  const std::string gallery_etag = GalleryEtag(List(owner));
  const std::string owner_etag = RoomTypeEtag();
  db().Exec("DELETE FROM change_staging");

  Gallery reordered;
  ASSERT_TRUE(images_.Reorder(owner, {c.id(), a.id(), b.id()}, gallery_etag, "", &reordered).ok());
  EXPECT_EQ(Ids(reordered), (std::vector<std::string>{c.id(), a.id(), b.id()}));
  for (int i = 0; i < reordered.size(); ++i) EXPECT_EQ(reordered[i].sort_order(), i);
  EXPECT_NE(GalleryEtag(reordered), gallery_etag);
  EXPECT_NE(RoomTypeEtag(), owner_etag);
  EXPECT_EQ(ImageChanges().size(), 3u);  // each image moved

  // The gallery etag read before is stale; a list that is not the gallery names image_ids.
  EXPECT_EQ(ErrorReason(images_.Reorder(owner, {a.id(), b.id(), c.id()}, gallery_etag, "", &reordered)),
            "ETAG_MISMATCH");
  EXPECT_EQ(ViolatedFields(images_.Reorder(owner, {a.id(), b.id()}, "", "", &reordered)),
            std::vector<std::string>{"image_ids"});
  const Image elsewhere = Add(ImageOwner::Room("BER1", "101"), 4);
  EXPECT_EQ(ViolatedFields(images_.Reorder(owner, {a.id(), b.id(), c.id(), elsewhere.id()}, "", "", &reordered)),
            std::vector<std::string>{"image_ids"});
  EXPECT_EQ(Ids(List(owner)), (std::vector<std::string>{c.id(), a.id(), b.id()}));
  EXPECT_EQ(images_.Reorder(ImageOwner::RoomType("BER1-NOPE"), {a.id()}, "", "", &reordered).code(),
            absl::StatusCode::kNotFound);
}

TEST_F(ImageManagementTest, DeleteRemovesTheImageAndReleasesItsFilesOnce) {
  const auto owner = ImageOwner::Room("BER1", "101");
  const Image a = Add(owner, 1), b = Add(owner, 2);
  hotel::v1::Room room;
  ASSERT_TRUE(rooms_.GetRoom("BER1", "101", &room).ok());
  const std::string room_etag = room.etag();
  ASSERT_EQ(room.images_size(), 2);

  EXPECT_EQ(ErrorReason(images_.Delete(a.id(), ImageEtag(a.id(), 7), "")), "ETAG_MISMATCH");
  ASSERT_TRUE(images_.Delete(a.id(), a.etag(), "").ok());
  EXPECT_EQ(Ids(List(owner)), std::vector<std::string>{b.id()});
  hotel::v1::Room after;
  ASSERT_TRUE(rooms_.GetRoom("BER1", "101", &after).ok());
  EXPECT_EQ(after.images_size(), 1);
  EXPECT_NE(after.etag(), room_etag);
  EXPECT_EQ(db().Scalar("SELECT string_agg(storage_key, ',' ORDER BY storage_key) FROM image_files_released"),
            "img/aa/original1.jpg,img/aa/thumb1.jpg");
  EXPECT_EQ(ImageChanges().back(), absl::StrCat("DELETED ", a.id(), " "));

  Image gone;
  EXPECT_EQ(ErrorReason(images_.Delete(a.id(), "", "")), "IMAGE_NOT_FOUND");
  EXPECT_EQ(ErrorReason(images_.Get(a.id(), &gone)), "IMAGE_NOT_FOUND");
  // The same original may be added again once removed: a new image.
  EXPECT_NE(Add(owner, 1).id(), a.id());
}

// Eight writers patch, reorder and delete on one gallery with the etags they read: every write
// either commits or is refused as stale (never another error), nothing is lost, and the gallery
// stays a consistent order.
TEST_F(ImageManagementTest, ConcurrentWritersOnOneGalleryLoseNothing) {
  const auto owner = ImageOwner::RoomType(kRoomType);
  for (int i = 0; i < 8; ++i) Add(owner, i);
  std::atomic<int> committed{0}, stale{0}, other{0}, patched{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 8; ++w) {
    writers.emplace_back([&, w] {
      for (int round = 0; round < 15; ++round) {
        Gallery gallery;
        if (!images_.List(owner, &gallery).ok()) {
          ++other;
          continue;
        }
        absl::Status status;
        if (gallery.empty()) break;
        if ((w + round) % 3 == 0) {
          std::vector<std::string> ids = Ids(gallery);
          std::rotate(ids.begin(), ids.begin() + 1, ids.end());
          Gallery out;
          status = images_.Reorder(owner, ids, GalleryEtag(gallery), "", &out);
        } else if (w == 7 && round == 5) {
          status = images_.Delete(gallery[0].id(), gallery[0].etag(), "");
        } else {
          const Image& target = gallery[round % gallery.size()];
          Image patch;
          patch.set_alt_text(absl::StrCat("writer ", w, " round ", round));
          patch.set_etag(target.etag());
          Image out;
          status = images_.Update(target.id(), patch, {"alt_text"}, "", &out);
          if (status.ok()) ++patched;
        }
        if (status.ok()) {
          ++committed;
        } else if (ErrorReason(status) == "ETAG_MISMATCH" || ErrorReason(status) == "IMAGE_NOT_FOUND") {
          ++stale;
        } else {
          ADD_FAILURE() << status;
          ++other;
        }
      }
    });
  }
  for (auto& writer : writers) writer.join();
  EXPECT_EQ(other.load(), 0);
  EXPECT_GT(committed.load(), 0);
  // Every committed patch is an UPDATED change of alt_text: none was overwritten unseen.
  const auto changes = ImageChanges();
  const auto alt_text_changes = std::count_if(changes.begin(), changes.end(), [](const std::string& change) {
    return change.rfind("UPDATED ", 0) == 0 && change.find("alt_text") != std::string::npos;
  });
  EXPECT_EQ(alt_text_changes, patched.load());
  // After the reorders the sort orders are distinct and in list order.
  const Gallery final_gallery = List(owner);
  for (int i = 1; i < final_gallery.size(); ++i) {
    EXPECT_LT(final_gallery[i - 1].sort_order(), final_gallery[i].sort_order());
  }
}

}  // namespace
}  // namespace hotel::images
