#include "images/image_model.h"

#include <gtest/gtest.h>

#include "common/errors.h"
#include "images/webp_container.h"

namespace hotel::images {
namespace {

const VariantSpec& Spec(absl::string_view name) {
  for (const auto& spec : Variants()) {
    if (spec.name == name) return spec;
  }
  throw std::logic_error("no such variant");
}

TEST(VariantSize, LandscapeFitsEachBox) {
  Size original{4000, 3000};
  EXPECT_EQ(VariantSize(original, Spec("thumbnail")), (Size{200, 150}));
  EXPECT_EQ(VariantSize(original, Spec("medium")), (Size{800, 600}));
  EXPECT_EQ(VariantSize(original, Spec("large")), (Size{1920, 1440}));
  EXPECT_EQ(VariantSize(original, Spec("original")), original);
}

TEST(VariantSize, PortraitThumbnailIsBoundByHeight) {
  Size original{3000, 4000};
  EXPECT_EQ(VariantSize(original, Spec("thumbnail")), (Size{113, 150}));  // 112.5 rounds up
  EXPECT_EQ(VariantSize(original, Spec("medium")), (Size{800, 1067}));
  EXPECT_EQ(VariantSize(original, Spec("large")), (Size{1920, 2560}));
}

TEST(VariantSize, WideThumbnailIsBoundByWidth) {
  EXPECT_EQ(VariantSize({2400, 1600}, Spec("thumbnail")), (Size{200, 133}));
  EXPECT_EQ(VariantSize({5000, 10}, Spec("thumbnail")), (Size{200, 1}));  // never below one pixel
}

TEST(VariantSize, SmallOriginalsAreNeverUpscaled) {
  Size tiny{50, 40};
  for (const auto& spec : Variants()) EXPECT_EQ(VariantSize(tiny, spec), tiny) << spec.name;
  // Smaller than medium but larger than the thumbnail box.
  Size small{640, 480};
  EXPECT_EQ(VariantSize(small, Spec("thumbnail")), (Size{200, 150}));
  EXPECT_EQ(VariantSize(small, Spec("medium")), small);
  EXPECT_EQ(VariantSize(small, Spec("large")), small);
}

TEST(VariantSize, ExactBoxIsKept) {
  EXPECT_EQ(VariantSize({200, 150}, Spec("thumbnail")), (Size{200, 150}));
  EXPECT_EQ(VariantSize({800, 10}, Spec("medium")), (Size{800, 10}));
}

TEST(Variants, WebpBesideJpegForAllButTheOriginal) {
  ASSERT_EQ(Variants().size(), 4u);
  for (const auto& spec : Variants()) EXPECT_EQ(spec.webp, spec.name != "original") << spec.name;
}

TEST(StorageKey, IsDerivedFromTheContentHash) {
  const std::string sha(64, 'a');
  EXPECT_EQ(StorageKey(sha, "jpeg"), "img/aa/" + sha + ".jpg");
  EXPECT_EQ(StorageKey(sha, "webp"), "img/aa/" + sha + ".webp");
  EXPECT_EQ(StorageKey(sha, "png"), "img/aa/" + sha + ".png");
  EXPECT_NE(StorageKey(std::string(64, 'b'), "jpeg"), StorageKey(sha, "jpeg"));
}

TEST(CdnUrl, JoinsWithExactlyOneSlash) {
  EXPECT_EQ(CdnUrl("https://cdn.example.com/hotel", "img/aa/x.jpg"), "https://cdn.example.com/hotel/img/aa/x.jpg");
  EXPECT_EQ(CdnUrl("https://cdn.example.com/hotel/", "/img/aa/x.jpg"), "https://cdn.example.com/hotel/img/aa/x.jpg");
  EXPECT_EQ(CdnUrl("", "img/aa/x.jpg"), "/img/aa/x.jpg");
}

TEST(ValidateOriginal, AcceptsJpegPngAndWebpWithinLimits) {
  OriginalLimits limits;
  EXPECT_TRUE(ValidateOriginal("jpeg", 1000, {4000, 3000}, limits).ok());
  EXPECT_TRUE(ValidateOriginal("png", 1000, {1, 1}, limits).ok());
  EXPECT_TRUE(ValidateOriginal("webp", 1000, {12000, 5000}, limits).ok());
}

TEST(ValidateOriginal, RefusesOtherFormatsNamingTheFile) {
  for (absl::string_view format : {"gif", "heif", "svg", "tiff", ""}) {
    auto status = ValidateOriginal(format, 1000, {10, 10}, {});
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << format;
    EXPECT_EQ(ErrorReason(status), "UNSUPPORTED_IMAGE");
    EXPECT_EQ(FieldViolations(status).front().field, "file");
  }
}

TEST(ValidateOriginal, RefusesTooManyBytesOrPixels) {
  OriginalLimits limits{1000, 100, 5000};
  EXPECT_EQ(ErrorReason(ValidateOriginal("jpeg", 1001, {10, 10}, limits)), "IMAGE_TOO_LARGE");
  EXPECT_EQ(ErrorReason(ValidateOriginal("jpeg", 10, {101, 10}, limits)), "IMAGE_TOO_LARGE");
  EXPECT_EQ(ErrorReason(ValidateOriginal("jpeg", 10, {100, 51}, limits)), "IMAGE_TOO_LARGE");
  EXPECT_TRUE(ValidateOriginal("jpeg", 1000, {100, 50}, limits).ok());
}

TEST(AddFile, PutsJpegAsPrimaryAndWebpAsRendition) {
  hotel::v1::Image image;
  AddFile({"medium", "jpeg", "img/aa/a.jpg", 800, 600, 1234}, "https://cdn", &image);
  AddFile({"medium", "webp", "img/bb/b.webp", 800, 600, 999}, "https://cdn", &image);
  AddFile({"original", "png", "img/cc/c.png", 900, 1200, 5555}, "https://cdn", &image);
  AddFile({"poster", "jpeg", "img/dd/d.jpg", 1, 1, 1}, "https://cdn", &image);  // ignored
  const auto& medium = image.variants().medium();
  EXPECT_EQ(medium.url(), "https://cdn/img/aa/a.jpg");
  EXPECT_EQ(medium.format(), "jpeg");
  EXPECT_EQ(medium.bytes(), 1234);
  EXPECT_EQ(medium.webp().url(), "https://cdn/img/bb/b.webp");
  EXPECT_EQ(medium.webp().format(), "webp");
  EXPECT_EQ(medium.webp().bytes(), 999);
  EXPECT_EQ(image.variants().original().format(), "png");
  EXPECT_EQ(image.variants().original().height(), 1200);
  EXPECT_FALSE(image.variants().original().has_webp());
  EXPECT_FALSE(image.variants().has_thumbnail());
}

}  // namespace
}  // namespace hotel::images

namespace hotel::images {
namespace {

std::string Chunk(absl::string_view fourcc, absl::string_view data) {
  std::string out(fourcc);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((data.size() >> (8 * i)) & 0xff));
  out.append(data.data(), data.size());
  if (data.size() % 2 == 1) out.push_back('\0');
  return out;
}

std::string Riff(const std::string& chunks) {
  std::string out = "RIFF";
  const size_t size = chunks.size() + 4;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((size >> (8 * i)) & 0xff));
  return out + "WEBP" + chunks;
}

TEST(StripWebpMetadata, DropsExifXmpAndIccAndClearsTheirFlags) {
  std::string vp8x = Chunk("VP8X", std::string("\x2c\0\0\0\x09\0\0\x07\0\0", 10));  // ICC|EXIF|XMP
  std::string image = Chunk("VP8 ", "pixels!");                                     // odd size: padded
  std::string webp = Riff(vp8x + Chunk("ICCP", "icc") + image + Chunk("EXIF", "Exif\0\0MM") + Chunk("XMP ", "<x/>"));
  auto stripped = StripWebpMetadata(webp);
  ASSERT_TRUE(stripped.ok()) << stripped.status();
  std::string expected_vp8x = Chunk("VP8X", std::string("\0\0\0\0\x09\0\0\x07\0\0", 10));
  EXPECT_EQ(*stripped, Riff(expected_vp8x + image));
}

TEST(StripWebpMetadata, LeavesASimpleFileAlone) {
  std::string webp = Riff(Chunk("VP8L", "lossless"));
  EXPECT_EQ(*StripWebpMetadata(webp), webp);
}

TEST(StripWebpMetadata, RefusesWhatIsNotAWebpContainer) {
  EXPECT_FALSE(StripWebpMetadata("not a webp").ok());
  EXPECT_FALSE(StripWebpMetadata(Riff(Chunk("VP8 ", "abc")).substr(0, 17)).ok());  // truncated chunk
}

}  // namespace
}  // namespace hotel::images
