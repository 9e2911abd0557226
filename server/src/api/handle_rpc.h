// The shell every handler runs its body in: the one place where a call is admitted (or refused
// because the server is overloaded), gets its deadline, and where an absl::Status becomes what
// gRPC (and, through the gateway, REST) clients see.
#pragma once

#include <grpcpp/server_context.h>
#include <grpcpp/support/status.h>

#include <functional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "api/admission.h"
#include "api/readiness.h"
#include "google/protobuf/message.h"

namespace hotel::api {

// What a call is, from its request message's name: reads (Get*, List*) and writes get their own
// default deadline; streams (Watch*) live as long as their caller wants and have their own limit.
enum class CallKind { kRead, kWrite, kStream };
CallKind CallKindOf(const google::protobuf::Message& request);

// How calls are admitted and how long they may run, one per process (main.cc installs it before
// serving). Without one, calls are neither limited nor given a default deadline (unit tests).
struct CallPolicy {
  AdmissionControl* admission = nullptr;
  absl::Duration read_timeout = absl::InfiniteDuration();   // when the caller sets no deadline
  absl::Duration write_timeout = absl::InfiniteDuration();  // likewise
  absl::Duration retry_after = absl::Seconds(1);            // grpc-retry-pushback-ms of a refusal
};
void InstallCallPolicy(const CallPolicy* policy);

// The trailing metadata key that tells a gRPC client when to retry a refused call (gRFC A6).
inline constexpr char kRetryPushbackHeader[] = "grpc-retry-pushback-ms";

// Runs one RPC body: refuses while starting and requests with NUL characters in their text,
// admits the call (UNAVAILABLE OVERLOADED with grpc-retry-pushback-ms when the server is full),
// gives it a deadline (the caller's, or the policy's default for its kind, whichever is
// earlier) that the connection pool honours, and turns the absl::Status into a google.rpc.Status.
grpc::Status HandleRpc(grpc::ServerContext* context, const Readiness& readiness,
                       const google::protobuf::Message& request, const std::function<absl::Status()>& body);

// google.rpc.Status with ErrorInfo and BadRequest details. INTERNAL and UNKNOWN errors
// lose their message: it may hold SQL or library text that clients must not see.
grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace hotel::api
