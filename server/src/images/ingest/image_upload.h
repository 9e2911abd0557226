// UploadImage: a client stream (metadata, then the file's chunks, then optionally a closing
// metadata with the fields that came after the file) turned into an ingestion. The
// bytes are collected as they arrive (bounded by the original's byte limit, refused as soon as it
// is passed); only a stream that ends cleanly is rendered, on the render pool (its own admission
// control: about one render per core, refused with UNAVAILABLE OVERLOADED when full), so a stream
// cut off midway or cancelled stores nothing.
#pragma once

#include <atomic>

#include "absl/status/statusor.h"
#include "api/admission.h"
#include "api/call_runner.h"
#include "hotel/v1/images.pb.h"
#include "images/image_service.h"
#include "images/ingest/image_ingestion.h"

namespace hotel::images {

// The ingestion an upload's metadata asks for (the file still to come). INVALID_ARGUMENT naming
// the field for a missing or doubled owner and for what ValidateIngestRequest refuses.
// alt_text, sort_order and request_id are judged here only when alt_text is set; else at the end.
absl::StatusOr<IngestRequest> IngestRequestOf(const hotel::v1::UploadImageMetadata& metadata);

// Adds what a closing metadata message (after the file's chunks: a multipart body whose text
// fields follow its file) carries: only alt_text, sort_order and request_id, each at most once
// over both messages; INVALID_ARGUMENT naming the field otherwise.
absl::Status AddClosingMetadata(const hotel::v1::UploadImageMetadata& closing, IngestRequest& request);

class ImageUploadService final : public ImageUploads {
 public:
  // At most as many uploads hold an original (being received, waiting for a render slot or
  // rendering) as the render pool has slots and places in its queue: beyond them an upload is
  // refused (UNAVAILABLE OVERLOADED, with retry pushback) on its metadata, before a byte of it is
  // held, so the originals in memory are bounded (40 MiB each) whatever the number of callers.
  ImageUploadService(ImageIngestion& ingestion, api::CallRunner& calls, api::AdmissionControl& renders,
                     OriginalLimits limits = {})
      : ingestion_(ingestion),
        calls_(calls),
        renders_(renders),
        limits_(limits),
        max_holding_(renders.options().limit + renders.options().queue) {}

  grpc::ServerReadReactor<hotel::v1::UploadImageRequest>* Upload(grpc::CallbackServerContext* context,
                                                                 hotel::v1::UploadImageResponse* response) override;

 private:
  friend class UploadReactor;
  ImageIngestion& ingestion_;
  api::CallRunner& calls_;
  api::AdmissionControl& renders_;
  const OriginalLimits limits_;
  const int max_holding_;
  std::atomic<int> holding_{0};  // uploads holding an original
};

}  // namespace hotel::images
