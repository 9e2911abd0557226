#include "api/call_runner.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "api/call_span.h"
#include "common/change_cursor.h"
#include "common/text_fields.h"
#include "common/tracing.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"

namespace hotel::api {

CallRunnerOptions CallRunnerOptions::FromConfig(const Config& config) {
  CallRunnerOptions options;
  options.read_timeout = config.read_timeout;
  options.write_timeout = config.write_timeout;
  options.upload_timeout = config.upload_timeout;
  return options;
}
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

// The caller's consistency token, if it sent one (docs/consistency.md).
absl::Status ReadConsistencyToken(const grpc::CallbackServerContext& context, Consistency& consistency) {
  const auto& metadata = context.client_metadata();
  const auto found = metadata.find(kConsistencyTokenHeader);
  if (found == metadata.end()) return absl::OkStatus();
  auto position =
      DecodeConsistencyToken("consistency_token", absl::string_view(found->second.data(), found->second.size()));
  if (!position.ok()) return position.status();
  consistency.read_after = *position;
  return absl::OkStatus();
}

// The token of the call's writes, in the metadata its answer carries (sent by Finish).
void AnswerConsistencyToken(grpc::CallbackServerContext* context, const CallWrites& writes) {
  if (writes.committed != 0) {
    context->AddInitialMetadata(kConsistencyTokenHeader, EncodeConsistencyToken(writes.committed));
  }
}

}  // namespace

absl::Status CallRunner::CheckRequest(const google::protobuf::Message& request) const {
  absl::Status status = readiness_.CheckStarted();
  if (status.ok()) status = RejectNulCharacters(request);
  return status;
}

CallContext CallRunner::Arriving(grpc::CallbackServerContext* context, CallKind kind) const {
  CallContext call;
  if (const CallSpan* arrived = CallSpanOf(context)) call.span = arrived->arriving.span;
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
  const CallMethod& method = CallMethodOf(request);
  CallContext call = Arriving(context, method.kind);
  // A read call's reads may go to a replica (db/read_replicas.h decides); a write's, a probe's, a
  // stream's never.
  call.consistency.replica_reads = method.kind == CallKind::kRead;
  // Its answer's change cursor (api/change_cursor_interceptor.h) promises every change up to it.
  call.consistency.up_to_change_cursor = method.answers_change_cursor;
  absl::Status checked = CheckRequest(request);
  if (checked.ok()) checked = ReadConsistencyToken(*context, call.consistency);
  if (!checked.ok()) return Finish(context, checked);
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
    CallWrites writes;
    ScopedCallContext in_call(&call, &writes);
    ExportAdmissionSpan(call, submitted, admitted);
    // A refusal tells gRPC clients when to retry; a body's own UNAVAILABLE (the database) does not.
    absl::Status status = WithRetryPushback(context, std::move(admitted));
    // A call whose caller has gone, or whose deadline passed while it waited, is not worth running.
    if (status.ok()) status = CheckRequestBudget("on arrival");
    if (status.ok()) status = std::move(body)();
    AnswerConsistencyToken(context, writes);  // unary writes and uploads alike
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
