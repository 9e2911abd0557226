// The shell every handler runs its body in, injected into every service (as Readiness is): the
// one place where a call gets its per-call context (span and deadline), is checked, admitted or
// refused (api/admission.h decides), runs on a thread that may wait for PostgreSQL, and is
// finished with its absl::Status turned into what gRPC (and, through the gateway, REST) clients
// see.
//
// Every service is on gRPC's callback API (docs/decisions.md, "Threading model"): a handler
// returns at once with the call's reactor; the runner runs the body on an admission thread and
// finishes the call from there. What a body captures must outlive the handler: copy it
// (`[=, this]`); request, response and context live until the call is finished.
#pragma once

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "api/admission.h"
#include "api/call_methods.h"
#include "api/handle_rpc.h"
#include "api/readiness.h"
#include "common/call_context.h"
#include "common/config.h"
#include "google/protobuf/message.h"

namespace hotel::api {

struct CallRunnerOptions {
  absl::Duration read_timeout = absl::Seconds(5);    // when the caller sets no deadline
  absl::Duration write_timeout = absl::Seconds(10);  // likewise
  absl::Duration upload_timeout = absl::Minutes(2);  // likewise, for a client stream (a large upload)
  absl::Duration retry_after = absl::Seconds(1);     // grpc-retry-pushback-ms of a refusal

  // READ_TIMEOUT, WRITE_TIMEOUT and UPLOAD_TIMEOUT.
  static CallRunnerOptions FromConfig(const Config& config);
};

class CallRunner {
 public:
  CallRunner(const Readiness& readiness, AdmissionControl& admission, CallRunnerOptions options)
      : readiness_(readiness), admission_(admission), options_(options) {}

  // Runs one RPC body: refuses while starting and requests with NUL characters in their text,
  // gives the call a deadline (the caller's, or the default for its kind, whichever is earlier)
  // that the connection pool honours, admits it (UNAVAILABLE OVERLOADED with
  // grpc-retry-pushback-ms when the server is full), runs body under the call's context and
  // finishes the call with the absl::Status turned into a google.rpc.Status.
  grpc::ServerUnaryReactor* Run(grpc::CallbackServerContext* context, const google::protobuf::Message& request,
                                RpcBody body);
  // Like Run for a body that answers from memory: it runs at once, on gRPC's thread, without
  // admission (it costs less than refusing it would).
  grpc::ServerUnaryReactor* RunInline(grpc::CallbackServerContext* context, const google::protobuf::Message& request,
                                      RpcBody body);
  // For probes: on admission's probe threads whatever the load (never shed, never behind calls;
  // no readiness check: the probe reports it).
  grpc::ServerUnaryReactor* RunProbe(grpc::CallbackServerContext* context, RpcBody body);

  // For a server stream's handler: the checks Run makes before a body, and the call's context
  // (span; the caller's deadline, none by default). Its background work goes to RunStreamWork,
  // under that context.
  absl::Status CheckRequest(const google::protobuf::Message& request) const;
  CallContext StreamContext(grpc::CallbackServerContext* context) const;
  void RunStreamWork(absl::AnyInvocable<void() &&> work) { admission_.RunStreamWork(std::move(work)); }

  // For a client stream (an upload): the context of the call, with the caller's deadline or
  // upload_timeout, whichever is earlier. Taken as the call arrives: upload_timeout counts from then.
  CallContext UploadContext(grpc::CallbackServerContext* context) const { return Arriving(context, CallKind::kUpload); }
  // Runs body under call once pool (an admission control of its own, such as the render pool)
  // admits it, with the same refusals as Run (UNAVAILABLE OVERLOADED and grpc-retry-pushback-ms
  // when full, the deadline honoured while queued), then hands finish the call's status.
  void RunAdmitted(AdmissionControl& pool, grpc::CallbackServerContext* context, CallContext call, RpcBody body,
                   absl::AnyInvocable<void(grpc::Status) &&> finish);
  // status, with grpc-retry-pushback-ms set on the call when it is a refusal (OVERLOADED): for a
  // refusal made before admission (an upload refused before its bytes are held).
  absl::Status WithRetryPushback(grpc::CallbackServerContext* context, absl::Status status) const;

 private:
  // The context of a call arriving now: the span the RPC observer started in the call's server
  // context (api/call_span.h), the budget.
  CallContext Arriving(grpc::CallbackServerContext* context, CallKind kind) const;

  const Readiness& readiness_;
  AdmissionControl& admission_;
  const CallRunnerOptions options_;
};

}  // namespace hotel::api
