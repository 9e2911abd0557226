#include "api/call_runner.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/text_fields.h"
#include "common/tracing.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"

namespace hotel::api {
namespace {

// Work that commits at the last moment would be done for a caller that has already given up:
// the body's deadline leaves its answer this long to reach the caller.
constexpr absl::Duration kAnswerMargin = absl::Milliseconds(5);

// The call's wait for admission, as a span of its trace: from its submission to its admission
// (or refusal), so a trace shows queueing apart from execution.
void ExportAdmissionSpan(const CallContext& call, int64_t submitted_unix_nanos, const absl::Status& admitted) {
  if (!call.span) return;
  auto span = NewChildSpan(*call.span, "admission", SpanKind::kInternal, submitted_unix_nanos);
  if (span == nullptr) return;
  span->end_unix_nanos = absl::GetCurrentTimeNanos();
  span->attributes.emplace_back("hotel.admission.admitted", admitted.ok());
  if (!admitted.ok()) {
    span->error = true;
    span->status_message = std::string(admitted.message());
  }
  ExportSpan(std::move(span));
}

}  // namespace

CallKind CallKindOf(const google::protobuf::Message& request) {
  // The method that takes this request, declared beside it (one request message per method).
  const google::protobuf::Descriptor* type = request.GetDescriptor();
  const google::protobuf::FileDescriptor* file = type->file();
  for (int s = 0; s < file->service_count(); ++s) {
    const google::protobuf::ServiceDescriptor* service = file->service(s);
    for (int m = 0; m < service->method_count(); ++m) {
      const google::protobuf::MethodDescriptor* method = service->method(m);
      if (method->input_type() != type) continue;
      if (method->server_streaming()) return CallKind::kStream;
      if (method->client_streaming()) return CallKind::kUpload;
      return method->options().idempotency_level() == google::protobuf::MethodOptions::NO_SIDE_EFFECTS
                 ? CallKind::kRead
                 : CallKind::kWrite;
    }
  }
  return CallKind::kWrite;  // unknown: the stricter default
}

absl::Status CallRunner::CheckRequest(const google::protobuf::Message& request) const {
  absl::Status status = readiness_.CheckStarted();
  if (status.ok()) status = RejectNulCharacters(request);
  return status;
}

CallContext CallRunner::Arriving(grpc::CallbackServerContext* context, CallKind kind) const {
  CallContext call;
  call.span = TakeArrivingSpan();
  call.budget.deadline = absl::FromChrono(context->deadline()) - kAnswerMargin;
  if (kind != CallKind::kStream) {
    const absl::Duration fallback = kind == CallKind::kRead     ? options_.read_timeout
                                    : kind == CallKind::kUpload ? options_.upload_timeout
                                                                : options_.write_timeout;
    call.budget.deadline = std::min(call.budget.deadline, absl::Now() + fallback);
  }
  call.budget.cancelled = [context] { return context->IsCancelled(); };
  return call;
}

CallContext CallRunner::StreamContext(grpc::CallbackServerContext* context) const {
  return Arriving(context, CallKind::kStream);
}

absl::Status CallRunner::WithRetryPushback(grpc::CallbackServerContext* context, absl::Status status) const {
  if (status.code() == absl::StatusCode::kUnavailable) {
    context->AddTrailingMetadata(kRetryPushbackHeader, absl::StrCat(absl::ToInt64Milliseconds(options_.retry_after)));
  }
  return status;
}

grpc::ServerUnaryReactor* CallRunner::Run(grpc::CallbackServerContext* context,
                                          const google::protobuf::Message& request, RpcBody body) {
  CallContext call = Arriving(context, CallKindOf(request));
  if (auto status = CheckRequest(request); !status.ok()) return Finish(context, status);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  RunAdmitted(admission_, context, std::move(call), std::move(body),
              [reactor](grpc::Status status) { reactor->Finish(std::move(status)); });
  return reactor;
}

void CallRunner::RunAdmitted(AdmissionControl& pool, grpc::CallbackServerContext* context, CallContext call,
                             RpcBody body, absl::AnyInvocable<void(grpc::Status) &&> finish) {
  const absl::Time deadline = call.budget.deadline;
  const int64_t submitted = absl::GetCurrentTimeNanos();
  pool.Submit(deadline, [this, context, submitted, call = std::move(call), body = std::move(body),
                         finish = std::move(finish)](absl::Status admitted) mutable {
    ScopedCallContext in_call(&call);
    ExportAdmissionSpan(call, submitted, admitted);
    // A refusal tells gRPC clients when to retry; a body's own UNAVAILABLE (the database) does not.
    absl::Status status = WithRetryPushback(context, std::move(admitted));
    // A call whose caller has gone, or whose deadline passed while it waited, is not worth running.
    if (status.ok()) status = CheckRequestBudget("on arrival");
    if (status.ok()) status = std::move(body)();
    std::move(finish)(ToGrpcStatus(status));
  });
}

grpc::ServerUnaryReactor* CallRunner::RunInline(grpc::CallbackServerContext* context,
                                                const google::protobuf::Message& request, RpcBody body) {
  const CallContext call = Arriving(context, CallKindOf(request));
  ScopedCallContext in_call(&call);
  if (auto status = CheckRequest(request); !status.ok()) return Finish(context, status);
  return Finish(context, std::move(body)());
}

grpc::ServerUnaryReactor* CallRunner::RunProbe(grpc::CallbackServerContext* context, RpcBody body) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  admission_.RunProbe([reactor, call = Arriving(context, CallKind::kRead), body = std::move(body)]() mutable {
    ScopedCallContext in_call(&call);
    reactor->Finish(ToGrpcStatus(std::move(body)()));
  });
  return reactor;
}

}  // namespace hotel::api
