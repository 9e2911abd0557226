#include "images/ingest/image_ingestion.h"

#include "absl/strings/str_cat.h"
#include "common/errors.h"
#include "images/ingest/image_renderer.h"

namespace hotel::images {

constexpr size_t kMaxAltText = 500;

absl::Status ValidateIngestRequest(const IngestRequest& request) {
  FieldErrors errors;
  if (request.alt_text.empty()) errors.Add("alt_text", "is required: describe the picture for screen readers");
  if (request.alt_text.size() > kMaxAltText)
    errors.Add("alt_text", absl::StrCat("is longer than ", kMaxAltText, " bytes"));
  if (request.sort_order.has_value() && (*request.sort_order < 0 || *request.sort_order > 100000)) {
    errors.Add("sort_order", "must be from 0 to 100000");
  }
  return errors.ToStatus();
}

absl::StatusOr<IngestResult> ImageIngestion::Ingest(const IngestRequest& request) {
  if (auto s = ValidateIngestRequest(request); !s.ok()) return s;
  if (auto s = repository_.CheckOwner(request.owner); !s.ok()) return s;
  // Re-ingesting the same file is a no-op: the original's hash identifies it within its owner.
  auto existing = repository_.FindByContent(request.owner, Sha256Hex(request.original));
  if (!existing.ok()) return existing.status();
  if (existing->has_value()) return IngestResult{**existing, false};

  auto rendered = RenderImage(request.original, limits_);
  if (!rendered.ok()) return rendered.status();
  NewImage image{request.owner, rendered->content_sha256, request.alt_text, request.sort_order, rendered->size, {}};
  for (const RenderedFile& file : rendered->files) {
    if (auto s = store_.Put(file.file.storage_key, file.data, ContentTypeOf(file.file.format)); !s.ok()) return s;
    image.files.push_back(file.file);
  }
  return repository_.Register(image);
}

}  // namespace hotel::images
