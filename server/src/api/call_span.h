// Where the server's span of an RPC lives from the call's arrival to its status: in the call's own
// server context. gRPC allocates that context through CallSpanContexts (set on the server's
// builder) for every call of a service, so the RPC observer (observability/rpc_observer.h), which
// starts the span as the call's metadata arrives, and the call runner (api/call_runner.h), which
// runs the call's body under it, hold the same object of the call, whatever threads they run on:
// the span is handed over there, not through anything shared between calls.
#pragma once

#include <grpcpp/server_context.h>

#include "common/call_context.h"

namespace hotel::api {

// The call's span, as the observer starts it: only the span of the CallContext is set, so the
// observer can install it for its log line.
struct CallSpan {
  CallContext arriving;
};

// The server contexts gRPC allocates for the callback calls of services, each with the call's span.
// Not for a method no service has: gRPC's context for it (GenericCallbackServerContext) cannot be
// derived from, and no runner runs such a call.
class CallSpanContexts : public grpc::ContextAllocator {
 public:
  grpc::CallbackServerContext* NewCallbackServerContext() override;
  using grpc::ContextAllocator::Release;
  void Release(grpc::CallbackServerContext* context) override;
};

// The span of the call context belongs to, or nullptr for a context CallSpanContexts did not
// allocate (a server built without it, a method no service has).
CallSpan* CallSpanOf(grpc::ServerContextBase* context);

}  // namespace hotel::api
