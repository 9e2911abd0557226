#include "api/handle_rpc.h"

#include <atomic>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/errors.h"
#include "common/request_budget.h"
#include "common/text_fields.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace hotel::api {

namespace {
std::atomic<const CallPolicy*> installed_policy{nullptr};
}  // namespace

CallKind CallKindOf(const google::protobuf::Message& request) {
  const std::string& name = request.GetDescriptor()->name();
  if (absl::StartsWith(name, "Watch")) return CallKind::kStream;
  if (absl::StartsWith(name, "Get") || absl::StartsWith(name, "List")) return CallKind::kRead;
  return CallKind::kWrite;
}

void InstallCallPolicy(const CallPolicy* policy) { installed_policy.store(policy); }

grpc::Status HandleRpc(grpc::ServerContext* context, const Readiness& readiness,
                       const google::protobuf::Message& request, const std::function<absl::Status()>& body) {
  absl::Status status = readiness.CheckStarted();
  if (status.ok()) status = RejectNulCharacters(request);
  if (!status.ok()) return ToGrpcStatus(status);

  static const CallPolicy kNoPolicy;
  const CallPolicy* found = installed_policy.load();
  const CallPolicy& policy = found != nullptr ? *found : kNoPolicy;
  const CallKind kind = CallKindOf(request);
  RequestBudget budget;
  budget.deadline = absl::FromChrono(context->deadline());
  if (kind != CallKind::kStream) {
    const absl::Duration fallback = kind == CallKind::kRead ? policy.read_timeout : policy.write_timeout;
    budget.deadline = std::min(budget.deadline, absl::Now() + fallback);
  }
  budget.cancelled = [context] { return context->IsCancelled(); };
  ScopedRequestBudget in_scope(&budget);
  // A call whose caller has gone, or whose deadline passed while it waited for a thread, is
  // not worth a slot.
  if (status = CheckRequestBudget("on arrival"); !status.ok()) return ToGrpcStatus(status);

  std::optional<AdmissionControl::Ticket> ticket;
  if (policy.admission != nullptr && kind != CallKind::kStream) {
    auto admitted = policy.admission->Admit(budget.deadline);
    if (!admitted.ok()) {
      if (admitted.status().code() == absl::StatusCode::kUnavailable) {
        context->AddTrailingMetadata(kRetryPushbackHeader, absl::StrCat(absl::ToInt64Milliseconds(policy.retry_after)));
      }
      return ToGrpcStatus(admitted.status());
    }
    ticket.emplace(std::move(*admitted));
  }
  return ToGrpcStatus(body());
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
