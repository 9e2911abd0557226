// Ingests real generated JPEG and PNG files into a real PostgreSQL and a temporary CDN origin,
// then decodes every written file to check what a client of the CDN would get.
#include "images/ingest/image_ingestion.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vips/vips8>

#include "common/errors.h"
#include "images/ingest/image_renderer.h"
#include "rooms/room_repository.h"
#include "test_database.h"

namespace hotel::images {
namespace {

namespace fs = std::filesystem;
using vips::VImage;

constexpr char kCdn[] = "https://cdn.test/hotel";

class ImageIngestionTest : public ::testing::Test {
 protected:
  ImageIngestionTest()
      : origin_dir_(fs::temp_directory_path() / ("hotel-origin-" + std::to_string(getpid()))),
        repository_(testing::TestDatabase::Get().pool(), kCdn),
        origin_(origin_dir_.string()),
        files_(testing::TestDatabase::Get().pool()),
        ingestion_(repository_, files_, origin_) {
    EXPECT_TRUE(InitImageLibrary("hotel_integration_tests"));
    testing::TestDatabase::Get().Exec("DELETE FROM images");
    fs::remove_all(origin_dir_);
  }
  ~ImageIngestionTest() override { fs::remove_all(origin_dir_); }

  static std::string Picture(int width, int height, int seed, absl::string_view format) {
    auto picture = GeneratePicture(width, height, seed, format);
    EXPECT_TRUE(picture.ok()) << picture.status();
    return picture.ok() ? *picture : "";
  }

  absl::StatusOr<IngestResult> Ingest(ImageOwner owner, std::string original, std::optional<int> sort_order = {}) {
    return ingestion_.Ingest({std::move(owner), std::move(original), "A room with a view", sort_order, ""});
  }

  int CountRows(const std::string& table) {
    std::string count;
    absl::Status status = testing::TestDatabase::Get().pool().Run(db::Access::kRead, [&](db::Session& session) {
      pqxx::nontransaction txn(session.connection());
      count = txn.exec1("SELECT count(*) FROM " + table)[0].c_str();
      return absl::OkStatus();
    });
    EXPECT_TRUE(status.ok()) << status;
    return std::stoi(count);
  }

  int CountFiles() {
    if (!fs::exists(origin_dir_)) return 0;
    int files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(origin_dir_)) files += entry.is_regular_file();
    return files;
  }

  // Decodes the file a URL names on the origin, as a CDN client would see it.
  VImage Decode(absl::string_view url) {
    std::string key(url.substr(std::string(kCdn).size() + 1));
    return VImage::new_from_file(origin_.PathOf(key).c_str());
  }

  // Checks one delivered file: it exists, decodes in the stated format and size, and carries
  // no metadata.
  void ExpectFile(absl::string_view url, absl::string_view format, int width, int height, int64_t bytes) {
    SCOPED_TRACE(std::string(url));
    std::string key(url.substr(std::string(kCdn).size() + 1));
    ASSERT_TRUE(fs::exists(origin_.PathOf(key)));
    EXPECT_EQ(static_cast<int64_t>(fs::file_size(origin_.PathOf(key))), bytes);
    VImage image = Decode(url);
    EXPECT_EQ(image.width(), width);
    EXPECT_EQ(image.height(), height);
    EXPECT_EQ(std::string(image.get_string("vips-loader")), absl::StrCat(format, "load"));
    EXPECT_EQ(image.get_typeof("exif-data"), 0u) << "metadata must be stripped";
  }

  // Every variant has the geometry VariantSize promises for the original's size, with a WebP
  // rendition of the same size beside thumbnail, medium and large.
  void ExpectVariants(const hotel::v1::Image& image, Size original, absl::string_view original_format) {
    EXPECT_EQ(image.width(), original.width);
    EXPECT_EQ(image.height(), original.height);
    const auto& v = image.variants();
    for (const auto* variant : {&v.thumbnail(), &v.medium(), &v.large(), &v.original()}) {
      absl::string_view name = variant == &v.thumbnail() ? "thumbnail"
                               : variant == &v.medium()  ? "medium"
                               : variant == &v.large()   ? "large"
                                                         : "original";
      const VariantSpec* spec = nullptr;
      for (const auto& s : Variants()) {
        if (s.name == name) spec = &s;
      }
      Size size = VariantSize(original, *spec);
      SCOPED_TRACE(std::string(name));
      EXPECT_EQ(variant->width(), size.width);
      EXPECT_EQ(variant->height(), size.height);
      absl::string_view format = name == "original" ? original_format : "jpeg";
      EXPECT_EQ(variant->format(), format);
      ExpectFile(variant->url(), format, size.width, size.height, variant->bytes());
      if (name == "original") {
        EXPECT_FALSE(variant->has_webp());
      } else {
        EXPECT_EQ(variant->webp().format(), "webp");
        ExpectFile(variant->webp().url(), "webp", size.width, size.height, variant->webp().bytes());
      }
    }
  }

  fs::path origin_dir_;
  ImageRepository repository_;
  LocalObjectStore origin_;
  ImageFileRepository files_;
  ImageIngestion ingestion_;
};

TEST_F(ImageIngestionTest, LandscapeJpegGetsEveryVariantAndWebp) {
  auto result = Ingest(ImageOwner::RoomType("BER1-STD"), Picture(2400, 1600, 1, "jpeg"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->created);
  ExpectVariants(result->image, {2400, 1600}, "jpeg");
  EXPECT_EQ(result->image.variants().thumbnail().height(), 133);
  EXPECT_EQ(CountRows("image_files"), 7);
  EXPECT_EQ(CountFiles(), 7);
}

TEST_F(ImageIngestionTest, PortraitPngForARoomKeepsAPngOriginalAndIsNotUpscaled) {
  auto result = Ingest(ImageOwner::Room("LIS1", "G01"), Picture(600, 900, 2, "png"));
  ASSERT_TRUE(result.ok()) << result.status();
  ExpectVariants(result->image, {600, 900}, "png");
  EXPECT_EQ(result->image.variants().thumbnail().width(), 100);
  EXPECT_EQ(result->image.variants().medium().width(), 600);  // smaller than 800: kept
  EXPECT_EQ(result->image.variants().large().height(), 900);
}

TEST_F(ImageIngestionTest, TinyOriginalKeepsItsSizeInEveryVariant) {
  auto result = Ingest(ImageOwner::RoomType("LIS1-STD"), Picture(50, 40, 3, "jpeg"));
  ASSERT_TRUE(result.ok()) << result.status();
  ExpectVariants(result->image, {50, 40}, "jpeg");
}

TEST_F(ImageIngestionTest, ExifOrientationIsAppliedThenStripped) {
  // A 600x400 picture whose EXIF says "rotate 90° clockwise to view".
  const std::string upright = Picture(600, 400, 4, "jpeg");  // must outlive the lazy image
  VImage picture = VImage::new_from_buffer(upright, "").copy();
  picture.set("orientation", 6);
  VipsBlob* blob = picture.jpegsave_buffer();
  size_t length = 0;
  const void* data = vips_blob_get(blob, &length);
  std::string bytes(static_cast<const char*>(data), length);
  vips_area_unref(VIPS_AREA(blob));
  ASSERT_NE(VImage::new_from_buffer(bytes, "").get_typeof("exif-data"), 0u);

  auto result = Ingest(ImageOwner::RoomType("BER1-SUP"), bytes);
  ASSERT_TRUE(result.ok()) << result.status();
  ExpectVariants(result->image, {400, 600}, "jpeg");  // upright: portrait
}

TEST_F(ImageIngestionTest, SameFileTwiceIsOneImage) {
  std::string picture = Picture(800, 600, 5, "jpeg");
  auto first = Ingest(ImageOwner::RoomType("BER1-DLX"), picture);
  auto second = Ingest(ImageOwner::RoomType("BER1-DLX"), picture);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_TRUE(first->created);
  EXPECT_FALSE(second->created);
  EXPECT_EQ(second->image.SerializeAsString(), first->image.SerializeAsString());
  EXPECT_EQ(CountRows("images"), 1);
  // The same picture for another owner is that owner's image, sharing the files.
  auto other = Ingest(ImageOwner::RoomType("BER1-STE"), picture);
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->created);
  EXPECT_NE(other->image.id(), first->image.id());
  EXPECT_EQ(other->image.variants().large().url(), first->image.variants().large().url());
  EXPECT_EQ(CountRows("images"), 2);
}

TEST_F(ImageIngestionTest, ConcurrentIngestionOfOneFileMakesOneImage) {
  std::string picture = Picture(1200, 800, 6, "jpeg");
  std::vector<absl::StatusOr<IngestResult>> results(4, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = Ingest(ImageOwner::RoomType("BER1-FAM"), picture); });
  }
  for (auto& t : threads) t.join();
  int created = 0;
  for (const auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.status();
    created += r->created;
    EXPECT_EQ(r->image.id(), results[0]->image.id());
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(CountRows("images"), 1);
  EXPECT_EQ(CountRows("image_files"), 7);
}

TEST_F(ImageIngestionTest, CorruptOrForeignInputChangesNothing) {
  std::string jpeg = Picture(1600, 1200, 7, "jpeg");
  std::string png = Picture(400, 300, 8, "png");
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {"truncated JPEG", jpeg.substr(0, jpeg.size() / 2)},
      {"truncated PNG", png.substr(0, png.size() / 2)},
      {"JPEG with a damaged body", jpeg.substr(0, 700) + std::string(4000, '\x5a') + jpeg.substr(4700)},
      {"text", "this is not a picture"},
      {"empty", ""},
  };
  for (const auto& [name, bytes] : inputs) {
    auto result = Ingest(ImageOwner::RoomType("LIS1-SUP"), bytes);
    ASSERT_FALSE(result.ok()) << name;
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << name << ": " << result.status();
    ASSERT_FALSE(FieldViolations(result.status()).empty()) << name;
    EXPECT_EQ(FieldViolations(result.status()).front().field, "file") << name;
  }
  EXPECT_EQ(CountRows("images"), 0);
  EXPECT_EQ(CountFiles(), 0);
}

TEST_F(ImageIngestionTest, UnknownOwnerOrMissingAltTextChangesNothing) {
  std::string picture = Picture(300, 200, 9, "jpeg");
  auto no_type = Ingest(ImageOwner::RoomType("BER1-XXX"), picture);
  EXPECT_EQ(ErrorReason(no_type.status()), "ROOM_TYPE_NOT_FOUND");
  auto no_room = Ingest(ImageOwner::Room("BER1", "999"), picture);
  EXPECT_EQ(ErrorReason(no_room.status()), "ROOM_NOT_FOUND");
  auto no_alt = ingestion_.Ingest({ImageOwner::RoomType("BER1-STD"), picture, "", std::nullopt, ""});
  EXPECT_EQ(FieldViolations(no_alt.status()).front().field, "alt_text");
  EXPECT_EQ(CountRows("images"), 0);
  EXPECT_EQ(CountFiles(), 0);
}

TEST_F(ImageIngestionTest, GalleriesAreListedAndEmbeddedInSortOrder) {
  auto second = Ingest(ImageOwner::RoomType("LIS1-FAM"), Picture(640, 480, 10, "jpeg"), 5);
  auto first = Ingest(ImageOwner::RoomType("LIS1-FAM"), Picture(640, 480, 11, "png"), 1);
  auto appended = Ingest(ImageOwner::RoomType("LIS1-FAM"), Picture(640, 480, 12, "jpeg"));
  auto room = Ingest(ImageOwner::Room("BER1", "101"), Picture(640, 480, 13, "jpeg"));
  ASSERT_TRUE(first.ok() && second.ok() && appended.ok() && room.ok());
  EXPECT_EQ(appended->image.sort_order(), 6);  // after the owner's last image

  google::protobuf::RepeatedPtrField<hotel::v1::Image> gallery;
  ASSERT_TRUE(repository_.List(ImageOwner::RoomType("LIS1-FAM"), &gallery).ok());
  ASSERT_EQ(gallery.size(), 3);
  EXPECT_EQ(gallery[0].id(), first->image.id());
  EXPECT_EQ(gallery[1].id(), second->image.id());
  EXPECT_EQ(gallery[2].id(), appended->image.id());
  EXPECT_EQ(gallery[0].SerializeAsString(), first->image.SerializeAsString());

  rooms::RoomRepository rooms(testing::TestDatabase::Get().pool(), kCdn);
  hotel::v1::RoomType room_type;
  ASSERT_TRUE(rooms.GetRoomType("LIS1-FAM", &room_type).ok());
  ASSERT_EQ(room_type.images_size(), 3);
  EXPECT_EQ(room_type.images(0).SerializeAsString(), gallery[0].SerializeAsString());
  hotel::v1::Room detail;
  ASSERT_TRUE(rooms.GetRoom("BER1", "101", &detail).ok());
  ASSERT_EQ(detail.images_size(), 1);
  EXPECT_EQ(detail.images(0).id(), room->image.id());

  google::protobuf::RepeatedPtrField<hotel::v1::Image> empty;
  EXPECT_TRUE(repository_.List(ImageOwner::Room("BER1", "102"), &empty).ok());
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(ErrorReason(repository_.List(ImageOwner::Room("BER1", "999"), &empty)), "ROOM_NOT_FOUND");
  EXPECT_EQ(ErrorReason(repository_.List(ImageOwner::RoomType("BER1-XXX"), &empty)), "ROOM_TYPE_NOT_FOUND");
}

}  // namespace
}  // namespace hotel::images
