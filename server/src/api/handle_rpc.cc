#include "api/handle_rpc.h"

#include <string>
#include <vector>

#include "api/gateway_metadata.h"
#include "common/errors.h"
#include "common/text_fields.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace hotel::api {

grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* context, const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

RpcBody Created(grpc::CallbackServerContext* context, RpcBody body) {
  return [context, body = std::move(body)]() mutable {
    absl::Status status = std::move(body)();
    if (status.ok()) SetHttpStatus(context, 201);
    return status;
  };
}

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  google::rpc::Status rpc;
  rpc.set_code(static_cast<int>(status.code()));
  const bool hide_message = status.code() == absl::StatusCode::kInternal || status.code() == absl::StatusCode::kUnknown;
  rpc.set_message(hide_message ? "internal error" : ValidUtf8(status.message()));

  google::rpc::ErrorInfo info;
  std::string reason = ErrorReason(status);
  info.set_reason(reason.empty() || hide_message ? DefaultReason(status.code()) : reason);
  info.set_domain(std::string(kErrorDomain));
  rpc.add_details()->PackFrom(info);
  const std::vector<FieldViolation> violations = FieldViolations(status);
  if (!violations.empty()) {
    google::rpc::BadRequest bad_request;
    for (const auto& v : violations) {
      auto* out = bad_request.add_field_violations();
      out->set_field(v.field);
      out->set_description(v.description);
    }
    rpc.add_details()->PackFrom(bad_request);
  }
  return grpc::Status(static_cast<grpc::StatusCode>(rpc.code()), rpc.message(), rpc.SerializeAsString());
}

}  // namespace hotel::api
