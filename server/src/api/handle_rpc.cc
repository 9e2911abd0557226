#include "api/handle_rpc.h"

#include <atomic>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "api/gateway_metadata.h"
#include "common/errors.h"
#include "common/request_budget.h"
#include "common/text_fields.h"
#include "common/trace_context.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace hotel::api {

namespace {
std::atomic<const CallPolicy*> installed_policy{nullptr};
constexpr absl::Duration kAnswerMargin = absl::Milliseconds(5);
}  // namespace

CallKind CallKindOf(const google::protobuf::Message& request) {
  const std::string& name = request.GetDescriptor()->name();
  if (absl::StartsWith(name, "Watch")) return CallKind::kStream;
  if (absl::StartsWith(name, "Get") || absl::StartsWith(name, "List")) return CallKind::kRead;
  return CallKind::kWrite;
}

void InstallCallPolicy(const CallPolicy* policy) { installed_policy.store(policy); }

namespace {

const CallPolicy& Policy() {
  static const CallPolicy kNoPolicy;
  const CallPolicy* found = installed_policy.load();
  return found != nullptr ? *found : kNoPolicy;
}

// Tells gRPC clients when to retry a refused call.
void AddRetryPushback(grpc::CallbackServerContext* context, const CallPolicy& policy) {
  context->AddTrailingMetadata(kRetryPushbackHeader, absl::StrCat(absl::ToInt64Milliseconds(policy.retry_after)));
}

// status; a refusal (UNAVAILABLE) also tells gRPC clients when to retry.
absl::Status WithRetryPushback(grpc::CallbackServerContext* context, const CallPolicy& policy, absl::Status status) {
  if (status.code() == absl::StatusCode::kUnavailable) AddRetryPushback(context, policy);
  return status;
}

// Admits the call and runs its body under budget, on the thread this is called on.
absl::Status AdmitAndRun(grpc::CallbackServerContext* context, const CallPolicy& policy, CallKind kind,
                         const RequestBudget& budget, RpcBody body) {
  ScopedRequestBudget in_scope(&budget);
  // A call whose caller has gone, or whose deadline passed while it waited for a thread, is
  // not worth a slot.
  if (auto status = CheckRequestBudget("on arrival"); !status.ok()) return status;
  std::optional<AdmissionControl::Ticket> ticket;
  if (policy.admission != nullptr && kind != CallKind::kStream) {
    auto admitted = policy.admission->Admit(budget.deadline);
    if (!admitted.ok()) return WithRetryPushback(context, policy, admitted.status());
    ticket.emplace(std::move(*admitted));
  }
  return std::move(body)();
}

}  // namespace

absl::Status CheckRequest(const Readiness& readiness, const google::protobuf::Message& request) {
  absl::Status status = readiness.CheckStarted();
  if (status.ok()) status = RejectNulCharacters(request);
  return status;
}

grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* context, const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

namespace {

enum class Load { kBounded, kAlways };

// Hands work (which yields the call's status) to the executor and finishes the call from there;
// false, with nothing scheduled, when the executor is full and load is kBounded. The call's span
// (installed for this thread by the RPC observer) goes with it, so the log lines and writes of
// the body carry the trace; this thread serves other calls next.
bool FinishOnExecutor(CallExecutor& executor, Load load, grpc::ServerUnaryReactor* reactor, RpcBody work) {
  std::optional<RequestSpan> span;
  if (const RequestSpan* current = CurrentRequestSpan(); current != nullptr) span = *current;
  auto task = [reactor, span, work = std::move(work)]() mutable {
    const RequestSpan* call_span = span ? &*span : nullptr;
    InstallRequestSpan(call_span);
    reactor->Finish(ToGrpcStatus(std::move(work)()));
    ClearRequestSpan(call_span);
  };
  if (load == Load::kAlways) {
    executor.Schedule(std::move(task));
  } else if (!executor.TrySchedule(std::move(task))) {
    return false;
  }
  ClearRequestSpan(span ? &*span : nullptr);
  return true;
}

}  // namespace

grpc::ServerUnaryReactor* HandleRpc(grpc::CallbackServerContext* context, const Readiness& readiness,
                                    const google::protobuf::Message& request, RpcBody body) {
  if (auto status = CheckRequest(readiness, request); !status.ok()) return Finish(context, status);
  const CallPolicy& policy = Policy();
  const CallKind kind = CallKindOf(request);
  RequestBudget budget;
  // The caller's deadline, less the time its answer needs to reach it: work that commits at the
  // last moment would otherwise be done for a caller that has already given up.
  budget.deadline = absl::FromChrono(context->deadline()) - kAnswerMargin;
  if (kind != CallKind::kStream) {
    const absl::Duration fallback = kind == CallKind::kRead ? policy.read_timeout : policy.write_timeout;
    budget.deadline = std::min(budget.deadline, absl::Now() + fallback);
  }
  budget.cancelled = [context] { return context->IsCancelled(); };
  if (policy.executor == nullptr) {
    return Finish(context, AdmitAndRun(context, policy, kind, budget, std::move(body)));
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const bool scheduled =
      FinishOnExecutor(*policy.executor, Load::kBounded, reactor,
                       [context, &policy, kind, budget = std::move(budget), body = std::move(body)]() mutable {
                         return AdmitAndRun(context, policy, kind, budget, std::move(body));
                       });
  if (!scheduled) {
    // Every executor thread has a call, admitted or waiting for admission: the queue is full.
    // Under overload most calls end here: the answer is built once (issue 40, cheap refusals).
    static const grpc::Status kOverloaded = ToGrpcStatus(AdmissionControl::Overloaded());
    // Counts the refusal; the answer is the same as ever.
    if (policy.admission != nullptr) policy.admission->RefuseQueueFull().IgnoreError();
    AddRetryPushback(context, policy);
    reactor->Finish(kOverloaded);
  }
  return reactor;
}

grpc::ServerUnaryReactor* HandleInline(grpc::CallbackServerContext* context, const Readiness& readiness,
                                       const google::protobuf::Message& request, RpcBody body) {
  if (auto status = CheckRequest(readiness, request); !status.ok()) return Finish(context, status);
  return Finish(context, std::move(body)());
}

grpc::ServerUnaryReactor* HandleProbe(grpc::CallbackServerContext* context, RpcBody body) {
  CallExecutor* executor = Policy().executor;
  if (executor == nullptr) return Finish(context, std::move(body)());
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  FinishOnExecutor(*executor, Load::kAlways, reactor, std::move(body));
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
