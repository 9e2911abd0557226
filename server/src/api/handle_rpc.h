// The shell every handler runs its body in: the one place where a call is admitted (or refused
// because the server is overloaded), gets its deadline and a thread to wait for PostgreSQL on,
// and where an absl::Status becomes what gRPC (and, through the gateway, REST) clients see.
//
// Every service is on gRPC's callback API (docs/decisions.md, "Threading model"): a handler
// returns at once with the call's reactor; HandleRpc runs the body on the CallExecutor and
// finishes the call from there. What a body captures must outlive the handler: copy it
// (`[=, this]`); request, response and context live until the call is finished.
#pragma once

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>
#include <grpcpp/support/status.h>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "api/admission.h"
#include "api/call_executor.h"
#include "api/readiness.h"
#include "google/protobuf/message.h"

namespace hotel::api {

// What a call is, from its request message's name: reads (Get*, List*) and writes get their own
// default deadline; streams (Watch*) live as long as their caller wants and have their own limit.
enum class CallKind { kRead, kWrite, kStream };
CallKind CallKindOf(const google::protobuf::Message& request);

// How calls are admitted, where they run and how long they may run, one per process (main.cc
// installs it before serving). Without one, bodies run on gRPC's thread, neither limited nor
// given a default deadline (tests).
struct CallPolicy {
  AdmissionControl* admission = nullptr;
  CallExecutor* executor = nullptr;                         // admission.limit + queue threads
  absl::Duration read_timeout = absl::InfiniteDuration();   // when the caller sets no deadline
  absl::Duration write_timeout = absl::InfiniteDuration();  // likewise
  absl::Duration retry_after = absl::Seconds(1);            // grpc-retry-pushback-ms of a refusal
};
void InstallCallPolicy(const CallPolicy* policy);

// The trailing metadata key that tells a gRPC client when to retry a refused call (gRFC A6).
inline constexpr char kRetryPushbackHeader[] = "grpc-retry-pushback-ms";

using RpcBody = absl::AnyInvocable<absl::Status() &&>;

// Runs one RPC body: refuses while starting and requests with NUL characters in their text,
// gives the call a deadline (the caller's, or the policy's default for its kind, whichever is
// earlier) that the connection pool honours, admits it (UNAVAILABLE OVERLOADED with
// grpc-retry-pushback-ms when the server is full), runs body on the executor and finishes the
// call with the absl::Status turned into a google.rpc.Status.
grpc::ServerUnaryReactor* HandleRpc(grpc::CallbackServerContext* context, const Readiness& readiness,
                                    const google::protobuf::Message& request, RpcBody body);

// Like HandleRpc for a body that answers from memory: it runs at once, on gRPC's thread, without
// admission (it costs less than refusing it would).
grpc::ServerUnaryReactor* HandleInline(grpc::CallbackServerContext* context, const Readiness& readiness,
                                       const google::protobuf::Message& request, RpcBody body);

// For probes: body runs on the executor whatever the load (never shed, no readiness check: the
// probe reports it).
grpc::ServerUnaryReactor* HandleProbe(grpc::CallbackServerContext* context, RpcBody body);

// What every call is checked for before its body runs: the server has started, and no request
// text holds a NUL character (HandleRpc runs it; streams run it themselves).
absl::Status CheckRequest(const Readiness& readiness, const google::protobuf::Message& request);

// The call, finished now with status.
grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* context, const absl::Status& status);

// body, answering HTTP 201 over REST when it succeeds: a create answers 201 Created, also when a
// retry with the same request_id returns the record created first.
RpcBody Created(grpc::CallbackServerContext* context, RpcBody body);

// google.rpc.Status with ErrorInfo and BadRequest details. INTERNAL and UNKNOWN errors
// lose their message: it may hold SQL or library text that clients must not see.
grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace hotel::api
