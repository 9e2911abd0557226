#include "images/ingest/image_ingestion.h"

#include "absl/strings/str_cat.h"
#include "common/call_context.h"
#include "common/errors.h"
#include "images/ingest/image_renderer.h"

namespace hotel::images {

constexpr size_t kMaxAltText = 500;
constexpr size_t kMaxRequestId = 128;

absl::Status ValidateIngestRequest(const IngestRequest& request) {
  FieldErrors errors;
  if (request.alt_text.empty()) errors.Add("alt_text", "is required: describe the picture for screen readers");
  if (request.alt_text.size() > kMaxAltText)
    errors.Add("alt_text", absl::StrCat("is longer than ", kMaxAltText, " bytes"));
  if (request.sort_order.has_value() && (*request.sort_order < 0 || *request.sort_order > 100000)) {
    errors.Add("sort_order", "must be from 0 to 100000");
  }
  if (request.request_id.size() > kMaxRequestId) {
    errors.Add("request_id", absl::StrCat("is longer than ", kMaxRequestId, " bytes"));
  }
  return errors.ToStatus();
}

absl::StatusOr<IngestResult> ImageIngestion::Ingest(const IngestRequest& request) {
  if (auto s = ValidateIngestRequest(request); !s.ok()) return s;
  if (auto s = repository_.CheckOwner(request.owner); !s.ok()) return s;
  const std::string content_sha256 = Sha256Hex(request.original);
  if (!request.request_id.empty()) {
    auto earlier = repository_.FindByRequest(request.owner, request.request_id, content_sha256);
    if (!earlier.ok()) return earlier.status();
    if (earlier->has_value()) return IngestResult{**earlier, false};
  }
  // Re-ingesting the same file is a no-op: the original's hash identifies it within its owner.
  auto existing = repository_.FindByContent(request.owner, content_sha256);
  if (!existing.ok()) return existing.status();
  if (existing->has_value()) return IngestResult{**existing, false};

  auto rendered = RenderImage(request.original, limits_);
  if (!rendered.ok()) return rendered.status();
  // Rendering takes a while: a caller that has gone or run out of time gets nothing stored.
  if (auto s = CheckRequestBudget("after rendering"); !s.ok()) return s;
  NewImage image{request.owner,     rendered->content_sha256, request.alt_text, request.sort_order, rendered->size, {},
                 request.request_id};
  // Reserved first: a failed upload's files are collected after the grace period, and no
  // collection deletes them while this upload registers them.
  std::vector<std::string> keys;
  for (const RenderedFile& file : rendered->files) keys.push_back(file.file.storage_key);
  if (auto s = files_.Reserve(keys); !s.ok()) return s;
  for (const RenderedFile& file : rendered->files) {
    if (auto s = store_.Put(file.file.storage_key, file.data, ContentTypeOf(file.file.format)); !s.ok()) return s;
    image.files.push_back(file.file);
  }
  return repository_.Register(image);
}

}  // namespace hotel::images
