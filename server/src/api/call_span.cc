#include "api/call_span.h"

namespace hotel::api {
namespace {

class CallbackContext final : public grpc::CallbackServerContext, public CallSpan {};

}  // namespace

grpc::CallbackServerContext* CallSpanContexts::NewCallbackServerContext() { return new CallbackContext(); }

// gRPC hands back the contexts it made itself too (a method no service has), which it destroys.
void CallSpanContexts::Release(grpc::CallbackServerContext* context) { delete dynamic_cast<CallbackContext*>(context); }

CallSpan* CallSpanOf(grpc::ServerContextBase* context) { return dynamic_cast<CallSpan*>(context); }

}  // namespace hotel::api
