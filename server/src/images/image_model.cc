#include "images/image_model.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/errors.h"

namespace hotel::images {

const std::vector<VariantSpec>& Variants() {
  static const std::vector<VariantSpec> kVariants = {
      {"thumbnail", 200, 150, true},
      {"medium", 800, 0, true},
      {"large", 1920, 0, true},
      {"original", 0, 0, false},
  };
  return kVariants;
}

Size VariantSize(Size original, const VariantSpec& spec) {
  double scale = 1.0;
  if (spec.max_width > 0) scale = std::min(scale, static_cast<double>(spec.max_width) / original.width);
  if (spec.max_height > 0) scale = std::min(scale, static_cast<double>(spec.max_height) / original.height);
  if (scale >= 1.0) return original;
  auto scaled = [scale](int side) { return std::max(1, static_cast<int>(std::lround(side * scale))); };
  return {scaled(original.width), scaled(original.height)};
}

std::string StorageKey(absl::string_view sha256_hex, absl::string_view format) {
  absl::string_view extension = format == "jpeg" ? "jpg" : format;
  // A two-character fan-out keeps directories on the origin small.
  return absl::StrCat("img/", sha256_hex.substr(0, 2), "/", sha256_hex, ".", extension);
}

std::string CdnUrl(absl::string_view base_url, absl::string_view key) {
  while (absl::EndsWith(base_url, "/")) base_url.remove_suffix(1);
  while (absl::StartsWith(key, "/")) key.remove_prefix(1);
  return absl::StrCat(base_url, "/", key);
}

absl::Status ValidateOriginal(absl::string_view format, int64_t bytes, Size size, const OriginalLimits& limits) {
  if (format != "jpeg" && format != "png" && format != "webp") {
    return InvalidField("file",
                        absl::StrCat("is ", format.empty() ? "not a readable image" : format,
                                     "; the original must be a JPEG, PNG or WebP picture"),
                        "UNSUPPORTED_IMAGE");
  }
  if (bytes > limits.max_bytes) {
    return InvalidField("file", absl::StrCat("is ", bytes, " bytes; at most ", limits.max_bytes, " are accepted"),
                        "IMAGE_TOO_LARGE");
  }
  if (size.width < 1 || size.height < 1 || size.width > limits.max_side || size.height > limits.max_side ||
      static_cast<int64_t>(size.width) * size.height > limits.max_pixels) {
    return InvalidField("file",
                        absl::StrCat("is ", size.width, "x", size.height, " pixels; each side must be 1 to ",
                                     limits.max_side, " pixels and the area at most ", limits.max_pixels, " pixels"),
                        "IMAGE_TOO_LARGE");
  }
  return absl::OkStatus();
}

void AddFile(const ImageFile& file, absl::string_view cdn_base_url, hotel::v1::Image* image) {
  hotel::v1::ImageVariants* variants = image->mutable_variants();
  hotel::v1::ImageVariant* variant = nullptr;
  if (file.variant == "thumbnail") variant = variants->mutable_thumbnail();
  if (file.variant == "medium") variant = variants->mutable_medium();
  if (file.variant == "large") variant = variants->mutable_large();
  if (file.variant == "original") variant = variants->mutable_original();
  if (variant == nullptr) return;
  std::string url = CdnUrl(cdn_base_url, file.storage_key);
  if (file.format == "webp") {
    hotel::v1::ImageRendition* webp = variant->mutable_webp();
    webp->set_url(std::move(url));
    webp->set_width(file.width);
    webp->set_height(file.height);
    webp->set_format(file.format);
    webp->set_bytes(file.bytes);
    return;
  }
  variant->set_url(std::move(url));
  variant->set_width(file.width);
  variant->set_height(file.height);
  variant->set_format(file.format);
  variant->set_bytes(file.bytes);
}

}  // namespace hotel::images
