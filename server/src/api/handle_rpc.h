// The shell every handler runs its body in: the one place where an absl::Status becomes what
// gRPC (and, through the gateway, REST) clients see.
#pragma once

#include <grpcpp/support/status.h>

#include <functional>

#include "absl/status/status.h"
#include "api/readiness.h"
#include "google/protobuf/message.h"

namespace hotel::api {

// Runs one RPC body: refuses while starting and requests with NUL characters in their text,
// turns the absl::Status into a google.rpc.Status.
grpc::Status HandleRpc(const Readiness& readiness, const google::protobuf::Message& request,
                       const std::function<absl::Status()>& body);

// google.rpc.Status with ErrorInfo and BadRequest details. INTERNAL and UNKNOWN errors
// lose their message: it may hold SQL or library text that clients must not see.
grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace hotel::api
