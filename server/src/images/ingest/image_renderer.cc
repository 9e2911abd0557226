#include "images/ingest/image_renderer.h"

#include <glib.h>

#include <vips/vips8>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/errors.h"
#include "images/webp_container.h"

namespace hotel::images {
namespace {

using vips::VError;
using vips::VImage;

// Encoder settings: quality chosen for photos of rooms; strip drops EXIF, XMP and ICC blobs.
constexpr int kJpegQuality = 85;
constexpr int kWebpQuality = 80;

std::string TakeBlob(VipsBlob* blob) {
  size_t length = 0;
  const void* data = vips_blob_get(blob, &length);
  std::string bytes(static_cast<const char*>(data), length);
  vips_area_unref(VIPS_AREA(blob));
  return bytes;
}

std::string Encode(const VImage& image, absl::string_view format) {
  if (format == "webp") {
    std::string webp = TakeBlob(image.webpsave_buffer(VImage::option()->set("Q", kWebpQuality)->set("strip", true)));
    auto stripped = StripWebpMetadata(webp);
    return stripped.ok() ? *stripped : webp;
  }
  if (format == "png") {
    return TakeBlob(image.pngsave_buffer(VImage::option()->set("compression", 6)->set("strip", true)));
  }
  // JPEG has no alpha: flatten transparent originals onto white.
  VImage opaque = image.has_alpha()
                      ? image.flatten(VImage::option()->set("background", std::vector<double>{255, 255, 255}))
                      : image;
  return TakeBlob(opaque.jpegsave_buffer(
      VImage::option()->set("Q", kJpegQuality)->set("strip", true)->set("optimize_coding", true)));
}

// "jpeg", "png", ... from the loader libvips picks for bytes, or "" if none can read them.
std::string DetectFormat(absl::string_view bytes) {
  const char* loader = vips_foreign_find_load_buffer(bytes.data(), bytes.size());
  if (loader == nullptr) {
    vips_error_clear();
    return "";
  }
  // The loader's class name, e.g. VipsForeignLoadJpegBuffer or VipsForeignLoadGifBuffer.
  const std::string lower = absl::AsciiStrToLower(loader);
  absl::string_view name(lower);
  absl::ConsumePrefix(&name, "vipsforeignload");
  if (!absl::ConsumeSuffix(&name, "buffer")) absl::ConsumeSuffix(&name, "source");
  return std::string(name);
}

RenderedFile MakeFile(absl::string_view variant, absl::string_view format, const VImage& image, std::string data) {
  RenderedFile out;
  out.file.variant = std::string(variant);
  out.file.format = std::string(format);
  out.file.storage_key = StorageKey(Sha256Hex(data), format);
  out.file.width = image.width();
  out.file.height = image.height();
  out.file.bytes = static_cast<int64_t>(data.size());
  out.data = std::move(data);
  return out;
}

// An sRGB copy of image without EXIF, XMP, IPTC or ICC metadata. The encoders' own strip
// option alone is not enough for WebP (see webp_container.h).
VImage WithoutMetadata(const VImage& image) {
  VImage clean = image;
  if (image.get_typeof(VIPS_META_ICC_NAME) != 0) {
    try {
      clean = image.icc_transform("srgb");
    } catch (const VError&) {
      vips_error_clear();  // a broken profile: keep the pixels as they are
    }
  }
  clean = clean.copy();  // fields are removed from this copy only
  gchar** fields = vips_image_get_fields(clean.get_image());
  for (gchar** field = fields; *field != nullptr; ++field) {
    absl::string_view name(*field);
    if (absl::StartsWith(name, "exif-") || absl::StartsWith(name, "xmp-") || absl::StartsWith(name, "iptc-") ||
        absl::StartsWith(name, "icc-") || name == "orientation") {
      clean.remove(*field);
    }
  }
  g_strfreev(fields);
  return clean;
}

absl::Status Corrupt(absl::string_view detail) {
  return InvalidField("file", absl::StrCat("cannot be decoded: ", detail), "CORRUPT_IMAGE");
}

}  // namespace

bool InitImageLibrary(const char* argv0) {
  static const bool started = VIPS_INIT(argv0) == 0;
  return started;
}

std::string Sha256Hex(absl::string_view bytes) {
  gchar* hex =
      g_compute_checksum_for_data(G_CHECKSUM_SHA256, reinterpret_cast<const guchar*>(bytes.data()), bytes.size());
  std::string out(hex);
  g_free(hex);
  return out;
}

absl::StatusOr<RenderedImage> RenderImage(absl::string_view original, const OriginalLimits& limits) {
  const std::string format = DetectFormat(original);
  if (auto s = ValidateOriginal(format, static_cast<int64_t>(original.size()), Size{1, 1}, limits); !s.ok()) {
    return s;
  }
  try {
    // fail_on=error: truncated or damaged files are refused instead of rendered grey.
    VImage decoded = VImage::new_from_buffer(original.data(), original.size(), "",
                                             VImage::option()->set("fail_on", VIPS_FAIL_ON_ERROR));
    VImage upright = decoded.autorot();
    Size size{upright.width(), upright.height()};
    if (auto s = ValidateOriginal(format, static_cast<int64_t>(original.size()), size, limits); !s.ok()) return s;
    // Decode once into memory: every variant is made from these pixels, and a decode error
    // surfaces here, before any file exists.
    upright = WithoutMetadata(upright.copy_memory());

    RenderedImage out;
    out.content_sha256 = Sha256Hex(original);
    out.size = size;
    // Largest variant first, each made from the one before: scaling 1920 pixels down to 800
    // costs far less than scaling the full original again, and looks the same.
    VImage source = upright;
    for (auto spec = Variants().rbegin(); spec != Variants().rend(); ++spec) {
      if (spec->name == "original") {
        // The original keeps its format, except WebP: a variant's WebP file is its rendition
        // beside a JPEG or PNG, so a WebP original is delivered as PNG (with alpha) or JPEG.
        const std::string delivered = format != "webp" ? format : upright.has_alpha() ? "png" : "jpeg";
        out.files.push_back(MakeFile(spec->name, delivered, upright, Encode(upright, delivered)));
        continue;
      }
      Size target = VariantSize(size, *spec);
      // size=force with the aspect-kept target gives exactly VariantSize's pixels.
      if (target.width != source.width() || target.height != source.height()) {
        source = source
                     .thumbnail_image(target.width,
                                      VImage::option()->set("height", target.height)->set("size", VIPS_SIZE_FORCE))
                     .copy_memory();
      }
      out.files.push_back(MakeFile(spec->name, "jpeg", source, Encode(source, "jpeg")));
      if (spec->webp) out.files.push_back(MakeFile(spec->name, "webp", source, Encode(source, "webp")));
    }
    return out;
  } catch (const VError& error) {
    std::string detail = error.what();
    vips_error_clear();
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) detail.pop_back();
    return Corrupt(detail);
  }
}

absl::StatusOr<std::string> GeneratePicture(int width, int height, int seed, absl::string_view format) {
  if (width < 1 || height < 1) return InvalidField("size", "width and height must be at least 1");
  try {
    VImage xyz = VImage::xyz(width, height);
    VImage x = xyz[0];
    VImage y = xyz[1];
    double phase = (seed * 47) % 256;
    VImage red = x * (255.0 / width);
    VImage green = y * (255.0 / height);
    // Diagonal bands whose spacing and phase depend on seed, so every seed differs.
    VImage blue = ((x + y * 0.5) * (1.0 + seed % 7) / 8.0 + phase) % 256.0;
    VImage picture = red.bandjoin(green)
                         .bandjoin(blue)
                         .cast(VIPS_FORMAT_UCHAR)
                         .copy(VImage::option()->set("interpretation", VIPS_INTERPRETATION_sRGB));
    if (format == "png") return TakeBlob(picture.pngsave_buffer(VImage::option()->set("compression", 6)));
    if (format == "jpeg") return TakeBlob(picture.jpegsave_buffer(VImage::option()->set("Q", 90)));
    return InvalidField("format", "must be jpeg or png");
  } catch (const VError& error) {
    vips_error_clear();
    return absl::InternalError(error.what());
  }
}

}  // namespace hotel::images
