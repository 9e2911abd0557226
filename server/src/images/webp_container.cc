#include "images/webp_container.h"

#include <cstdint>

namespace hotel::images {
namespace {

// VP8X flag bits (WebP container specification).
constexpr uint8_t kIccFlag = 0x20;
constexpr uint8_t kExifFlag = 0x08;
constexpr uint8_t kXmpFlag = 0x04;

uint32_t ReadLe32(absl::string_view bytes, size_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(bytes[at])) |
         static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 2])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 3])) << 24;
}

void WriteLe32(std::string& bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

}  // namespace

absl::StatusOr<std::string> StripWebpMetadata(absl::string_view webp) {
  if (webp.size() < 12 || webp.substr(0, 4) != "RIFF" || webp.substr(8, 4) != "WEBP") {
    return absl::InvalidArgumentError("not a WebP file");
  }
  std::string out(webp.substr(0, 12));
  size_t at = 12;
  while (at < webp.size()) {
    if (webp.size() - at < 8) return absl::InvalidArgumentError("truncated WebP chunk header");
    absl::string_view fourcc = webp.substr(at, 4);
    const size_t size = ReadLe32(webp, at + 4);
    const size_t padded = 8 + size + (size & 1);
    if (padded > webp.size() - at) return absl::InvalidArgumentError("truncated WebP chunk");
    if (fourcc != "EXIF" && fourcc != "XMP " && fourcc != "ICCP") {
      const size_t chunk_start = out.size();
      out.append(webp.data() + at, padded);
      if (fourcc == "VP8X" && size >= 1) {
        out[chunk_start + 8] =
            static_cast<char>(static_cast<uint8_t>(out[chunk_start + 8]) & ~(kIccFlag | kExifFlag | kXmpFlag));
      }
    }
    at += padded;
  }
  WriteLe32(out, 4, static_cast<uint32_t>(out.size() - 8));
  return out;
}

}  // namespace hotel::images
