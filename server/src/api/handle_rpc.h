// How a call ends: an absl::Status becomes what gRPC (and, through the gateway, REST) clients see.
// Calls are run by the call runner (api/call_runner.h).
#pragma once

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>
#include <grpcpp/support/status.h>

#include <utility>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hotel::api {

// The trailing metadata key that tells a gRPC client when to retry a refused call (gRFC A6).
inline constexpr char kRetryPushbackHeader[] = "grpc-retry-pushback-ms";
// Read-your-writes (docs/consistency.md): a write answers its commit's token in this initial
// metadata; a read sent with it is served by a replica only once that replica has replayed that far.
// The gateway carries it as the HTTP header Consistency-Token, both ways.
inline constexpr char kConsistencyTokenHeader[] = "consistency-token";

using RpcBody = absl::AnyInvocable<absl::Status() &&>;

// The call, finished now with status.
grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* context, const absl::Status& status);

// body, answering HTTP 201 over REST when it succeeds: a create answers 201 Created, also when a
// retry with the same request_id returns the record created first.
RpcBody Created(grpc::CallbackServerContext* context, RpcBody body);

// The part of a body that checks the request, then acts on it: validated's error when it holds
// one, else what act answers, given the validated value (none when validated is an absl::Status).
// A body calls it, so the request is validated after the call runner's own checks:
//   return api::IfValid(ParseListRooms(*request), [&](const RoomQuery& query) { ... });
template <typename T, typename Act>
absl::Status IfValid(absl::StatusOr<T> validated, Act&& act) {
  if (!validated.ok()) return validated.status();
  return std::forward<Act>(act)(*validated);
}
template <typename Act>
absl::Status IfValid(const absl::Status& validated, Act&& act) {
  if (!validated.ok()) return validated;
  return std::forward<Act>(act)();
}

// google.rpc.Status with ErrorInfo and BadRequest details. INTERNAL and UNKNOWN errors
// lose their message: it may hold SQL or library text that clients must not see.
grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace hotel::api
