// Turns an uploaded original into the delivered files with libvips: validated, auto-rotated,
// scaled to each variant without upscaling, metadata stripped, JPEG (or PNG) plus WebP.
// Everything happens in memory; nothing is written, so a bad original changes nothing.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "images/image_model.h"

namespace hotel::images {

struct RenderedFile {
  ImageFile file;    // storage_key is content-addressed from data
  std::string data;  // the encoded bytes
};

struct RenderedImage {
  std::string content_sha256;  // of the original upload
  Size size;                   // of the original after auto-rotation
  std::vector<RenderedFile> files;
};

// Starts libvips once per process (idempotent); false if it cannot start.
bool InitImageLibrary(const char* argv0);

// INVALID_ARGUMENT naming the field "file" for anything that is not an acceptable, decodable JPEG,
// PNG or WebP: UNSUPPORTED_IMAGE (the format, sniffed from the bytes), IMAGE_TOO_LARGE (bytes, or
// the pixel dimensions read from the header before anything is decoded), CORRUPT_IMAGE.
absl::StatusOr<RenderedImage> RenderImage(absl::string_view original, const OriginalLimits& limits);

// Lowercase hex SHA-256 of bytes.
std::string Sha256Hex(absl::string_view bytes);

// A synthetic picture (colour gradients and bands varying with seed) encoded as "jpeg" or "png";
// the same arguments give the same bytes. For the seed data, tests and the benchmark.
absl::StatusOr<std::string> GeneratePicture(int width, int height, int seed, absl::string_view format);

}  // namespace hotel::images
