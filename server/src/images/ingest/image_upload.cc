#include "images/ingest/image_upload.h"

#include <grpcpp/alarm.h>

#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "api/handle_rpc.h"
#include "api/identifiers.h"
#include "common/errors.h"

namespace hotel::images {

absl::StatusOr<IngestRequest> IngestRequestOf(const hotel::v1::UploadImageMetadata& metadata) {
  IngestRequest request;
  const bool room_type = !metadata.room_type_id().empty();
  const bool room = !metadata.property_id().empty() || !metadata.number().empty();
  if (room_type && room) {
    return InvalidField("room_type_id", "give either room_type_id or property_id with number, not both");
  }
  if (room_type) {
    if (auto s = api::ValidateRoomTypeId("room_type_id", metadata.room_type_id()); !s.ok()) return s;
    request.owner = ImageOwner::RoomType(metadata.room_type_id());
  } else if (room) {
    if (auto s = api::ValidateRoomAddress(metadata.property_id(), metadata.number()); !s.ok()) return s;
    request.owner = ImageOwner::Room(metadata.property_id(), metadata.number());
  } else {
    return InvalidField("room_type_id", "an owner is required: room_type_id, or property_id with number");
  }
  request.alt_text = metadata.alt_text();
  if (metadata.has_sort_order()) request.sort_order = metadata.sort_order();
  request.request_id = metadata.request_id();
  // Without alt_text the fields may still come in the closing metadata: judged at the end.
  if (!request.alt_text.empty()) {
    if (auto s = ValidateIngestRequest(request); !s.ok()) return s;
  }
  return request;
}

absl::Status AddClosingMetadata(const hotel::v1::UploadImageMetadata& closing, IngestRequest& request) {
  if (!closing.room_type_id().empty() || !closing.property_id().empty() || !closing.number().empty()) {
    return InvalidField("metadata",
                        "the metadata after the file's chunks may carry only alt_text, sort_order and request_id");
  }
  FieldErrors twice;
  if (!closing.alt_text().empty() && !request.alt_text.empty()) twice.Add("alt_text", "is given twice");
  if (closing.has_sort_order() && request.sort_order.has_value()) twice.Add("sort_order", "is given twice");
  if (!closing.request_id().empty() && !request.request_id.empty()) twice.Add("request_id", "is given twice");
  if (auto s = twice.ToStatus(); !s.ok()) return s;
  if (!closing.alt_text().empty()) request.alt_text = closing.alt_text();
  if (closing.has_sort_order()) request.sort_order = closing.sort_order();
  if (!closing.request_id().empty()) request.request_id = closing.request_id();
  return absl::OkStatus();
}

// The call's context while its stream is being received, for the receive deadline's alarm (which
// may fire on another thread as the call ends).
struct ReceivingCall {
  absl::Mutex mu;
  grpc::CallbackServerContext* context ABSL_GUARDED_BY(mu);
};

class UploadReactor final : public grpc::ServerReadReactor<hotel::v1::UploadImageRequest> {
 public:
  UploadReactor(ImageUploadService& service, grpc::CallbackServerContext* context,
                hotel::v1::UploadImageResponse* response)
      : service_(service),
        context_(context),
        response_(response),
        call_(service.calls_.UploadContext(context)),
        receiving_(std::make_shared<ReceivingCall>()) {
    receiving_->context = context;
    // The stream must have ended by the call's deadline (the caller's, or UPLOAD_TIMEOUT when it
    // set none): a client that stops sending is cut off then, and the original it held let go.
    if (call_.budget.deadline != absl::InfiniteFuture()) {
      receive_deadline_.Set(absl::ToChronoTime(call_.budget.deadline), [receiving = receiving_](bool fired) {
        absl::MutexLock lock(&receiving->mu);
        if (fired && receiving->context != nullptr) receiving->context->TryCancel();
      });
    }
    StartRead(&message_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      EndOfStream();
      return;
    }
    if (absl::Status status = Take(); !status.ok()) {
      Finish(api::ToGrpcStatus(status));  // the rest of the stream is not read
      return;
    }
    StartRead(&message_);
  }

  void OnDone() override {
    StopReceiving();
    if (holding_) service_.holding_.fetch_sub(1);
    delete this;
  }

 private:
  absl::Status Take() {
    if (!request_.has_value()) {
      if (!message_.has_metadata()) {
        return InvalidField("metadata", "the first message must carry the metadata; the file's chunks follow it");
      }
      if (auto s = service_.calls_.CheckRequest(message_); !s.ok()) return s;
      auto request = IngestRequestOf(message_.metadata());
      if (!request.ok()) return request.status();
      if (service_.holding_.fetch_add(1) >= service_.max_holding_) {
        service_.holding_.fetch_sub(1);
        return service_.calls_.WithRetryPushback(context_, api::AdmissionControl::Overloaded());
      }
      holding_ = true;
      request_ = *std::move(request);
      return absl::OkStatus();
    }
    if (closed_) {
      return InvalidField("metadata", "the metadata after the file's chunks must be the last message");
    }
    if (message_.has_metadata()) {
      closed_ = true;
      return AddClosingMetadata(message_.metadata(), *request_);
    }
    if (!message_.has_chunk()) return InvalidField("chunk", "is required: the file's bytes follow the metadata");
    const std::string& chunk = message_.chunk();
    if (static_cast<int64_t>(request_->original.size() + chunk.size()) > service_.limits_.max_bytes) {
      return InvalidField("file", absl::StrCat("is larger than ", service_.limits_.max_bytes, " bytes"),
                          "IMAGE_TOO_LARGE");
    }
    request_->original.append(chunk);
    return absl::OkStatus();
  }

  void StopReceiving() {
    absl::MutexLock lock(&receiving_->mu);
    receiving_->context = nullptr;
  }

  void EndOfStream() {
    StopReceiving();
    receive_deadline_.Cancel();
    if (context_->IsCancelled()) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the upload was cancelled; nothing was stored"));
      return;
    }
    if (!request_.has_value()) {
      Finish(api::ToGrpcStatus(InvalidField("metadata", "is required: the stream carried no message")));
      return;
    }
    if (request_->original.empty()) {
      Finish(api::ToGrpcStatus(InvalidField("file", "is required: no bytes followed the metadata")));
      return;
    }
    // Judged before a render slot is taken (the closing metadata may have completed the fields).
    if (absl::Status status = ValidateIngestRequest(*request_); !status.ok()) {
      Finish(api::ToGrpcStatus(status));
      return;
    }
    service_.calls_.RunAdmitted(
        service_.renders_, context_, std::move(call_),
        [this]() -> absl::Status {
          auto result = service_.ingestion_.Ingest(*request_);
          request_.reset();  // the original's bytes are not needed any more
          if (!result.ok()) return result.status();
          *response_->mutable_image() = std::move(result->image);
          response_->set_created(result->created);
          return absl::OkStatus();
        },
        [this](grpc::Status status) { Finish(std::move(status)); });
  }

  ImageUploadService& service_;
  grpc::CallbackServerContext* const context_;
  hotel::v1::UploadImageResponse* const response_;
  CallContext call_;
  hotel::v1::UploadImageRequest message_;
  std::optional<IngestRequest> request_;
  bool closed_ = false;   // the closing metadata arrived: no message may follow
  bool holding_ = false;  // counted in service_.holding_ until done
  std::shared_ptr<ReceivingCall> receiving_;
  grpc::Alarm receive_deadline_;
};

grpc::ServerReadReactor<hotel::v1::UploadImageRequest>* ImageUploadService::Upload(
    grpc::CallbackServerContext* context, hotel::v1::UploadImageResponse* response) {
  return new UploadReactor(*this, context, response);
}

}  // namespace hotel::images
