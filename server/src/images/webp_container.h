// The RIFF container of WebP files. libvips 8.14's WebP saver writes an EXIF chunk even when
// asked to strip metadata, so delivered WebP files pass through StripWebpMetadata.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hotel::images {

// webp without its EXIF, XMP and ICC chunks, with the VP8X header's flags for them cleared and the
// RIFF size corrected. INVALID_ARGUMENT if webp is not a well-formed WebP container.
absl::StatusOr<std::string> StripWebpMetadata(absl::string_view webp);

}  // namespace hotel::images
