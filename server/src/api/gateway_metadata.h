// What the REST gateway and the server tell each other in gRPC metadata beyond the message:
// the HTTP status of a successful call (x-http-code, read by the gateway's response hook) and
// the If-Match header (forwarded as "if-match").
#pragma once

#include <grpcpp/server_context.h>

#include <string>

namespace hotel::api {

// The HTTP status REST clients get for a call that succeeds (201 for a create, 503 for a
// probe answering NOT_SERVING). No effect without a context (in-process calls from tests).
void SetHttpStatus(grpc::ServerContext* context, int http_code);

// status, with HTTP 201 when it is OK: a create answers 201 Created over REST, also when a
// retry with the same request_id returns the record created first.
grpc::Status Created(grpc::ServerContext* context, grpc::Status status);

// The If-Match header of the call, "" when absent.
std::string IfMatchHeader(const grpc::ServerContext* context);

}  // namespace hotel::api
