// What the REST gateway and the server tell each other in gRPC metadata beyond the message:
// the HTTP status of a successful call (x-http-code, read by the gateway's response hook) and
// the If-Match header (forwarded as "if-match").
#pragma once

#include <grpcpp/server_context.h>

#include <string>

namespace hotel::api {

// The HTTP status REST clients get for a call that succeeds (201 for a create, 503 for a
// probe answering NOT_SERVING). No effect without a context (in-process calls from tests).
void SetHttpStatus(grpc::ServerContextBase* context, int http_code);

// The If-Match header of the call, "" when absent.
std::string IfMatchHeader(const grpc::ServerContextBase* context);

}  // namespace hotel::api
