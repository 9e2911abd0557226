// The image model without I/O: the four delivered variants and their geometry, content-addressed
// storage keys, CDN URLs, the limits an uploaded original must meet, and how stored file rows
// become a hotel.v1.Image.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hotel/v1/images.pb.h"

namespace hotel::images {

struct Size {
  int width = 0;
  int height = 0;
  bool operator==(const Size& other) const { return width == other.width && height == other.height; }
};

// A delivered variant: the box it must fit in (0 = unbounded) and whether a WebP rendition sits
// beside the JPEG. The original is delivered at its own size, in its own format.
struct VariantSpec {
  absl::string_view name;
  int max_width = 0;
  int max_height = 0;
  bool webp = false;
};
const std::vector<VariantSpec>& Variants();  // thumbnail, medium, large, original: growing sizes

// The size of a variant of an original: scaled down to fit the spec's box with the aspect ratio
// kept (each side rounded to the nearest pixel), never scaled up, never below 1x1.
Size VariantSize(Size original, const VariantSpec& spec);

// Where a file lives on the CDN origin, derived from its own bytes' SHA-256 (lowercase hex), so a
// changed file always gets a new URL and caches can keep every URL forever.
std::string StorageKey(absl::string_view sha256_hex, absl::string_view format);
// base_url + "/" + key, with exactly one slash between them.
std::string CdnUrl(absl::string_view base_url, absl::string_view key);

// What an uploaded original must be.
struct OriginalLimits {
  int64_t max_bytes = 40 << 20;
  int max_side = 12000;
  int64_t max_pixels = 60'000'000;
};
// INVALID_ARGUMENT naming the field "file" unless the original's format (the decoder's name:
// "jpeg", "png", "webp" are accepted), size in bytes and dimensions are acceptable.
absl::Status ValidateOriginal(absl::string_view format, int64_t bytes, Size size, const OriginalLimits& limits);

// One stored file of an image, as kept in image_files.
struct ImageFile {
  std::string variant;  // thumbnail, medium, large, original
  std::string format;   // jpeg, png, webp
  std::string storage_key;
  int width = 0;
  int height = 0;
  int64_t bytes = 0;
};
// Puts file into image->variants: the WebP file as the variant's webp rendition, any other as
// the variant's primary file. Unknown variant names are ignored.
void AddFile(const ImageFile& file, absl::string_view cdn_base_url, hotel::v1::Image* image);

}  // namespace hotel::images
