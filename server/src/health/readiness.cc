#include "health/readiness.h"

#include "common/errors.h"
#include "common/text_fields.h"

namespace hotel {

absl::Status Readiness::CheckStarted() const {
  if (!started()) return UnavailableError("STARTING", "the service is starting; the database schema is not ready yet");
  return absl::OkStatus();
}

grpc::Status HandleRpc(const Readiness& readiness, const google::protobuf::Message& request,
                       const std::function<absl::Status()>& body) {
  absl::Status status = readiness.CheckStarted();
  if (status.ok()) status = RejectNulCharacters(request);
  if (status.ok()) status = body();
  return ToGrpcStatus(status);
}

}  // namespace hotel
