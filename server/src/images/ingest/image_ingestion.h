// Ingesting one original: validate, render every variant, write the files to the object store,
// then register the image in PostgreSQL. The record is written last, in one transaction, so a
// failure at any step leaves no record pointing at a missing file.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "images/image_file_repository.h"
#include "images/image_repository.h"
#include "images/ingest/object_store.h"

namespace hotel::images {

struct IngestRequest {
  ImageOwner owner;
  std::string original;  // the uploaded file's bytes
  std::string alt_text;
  std::optional<int> sort_order;
  std::string request_id;  // optional: a retry with the same id answers the first attempt's image
};

using IngestResult = RegisteredImage;

// INVALID_ARGUMENT naming the field unless alt_text, sort_order and request_id are acceptable.
absl::Status ValidateIngestRequest(const IngestRequest& request);

class ImageIngestion {
 public:
  ImageIngestion(ImageRepository& repository, ImageFileRepository& files, ObjectStore& store,
                 OriginalLimits limits = {})
      : repository_(repository), files_(files), store_(store), limits_(limits) {}

  absl::StatusOr<IngestResult> Ingest(const IngestRequest& request);

 private:
  ImageRepository& repository_;
  ImageFileRepository& files_;
  ObjectStore& store_;
  const OriginalLimits limits_;
};

}  // namespace hotel::images
