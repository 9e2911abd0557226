// A gRPC server interceptor, where tracing starts: it starts the server's span of each RPC
// (common/trace_context.h: the caller's `traceparent`, or a fresh trace, and the x-request-id the
// gateway forwards) and hands it to the call runner, which carries it in the call's context
// (common/call_context.h) so every log line carries its ids; it answers with the span's
// `traceparent` in the initial metadata, logs one line per RPC (service, method, status code,
// duration; never request bodies) and records the RPC's metrics. A method the server does not
// serve is recorded as "_OTHER": label values never come from what a client sends.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "observability/metrics.h"

namespace hotel {

class RpcObserverFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  // services: the full names of the services served ("hotel.v1.RoomService"); their methods are
  // the label values.
  RpcObserverFactory(Metrics& metrics, const std::vector<std::string>& services);
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override;

 private:
  Metrics& metrics_;
  absl::flat_hash_set<std::string> known_methods_;  // "/hotel.v1.RoomService/GetRoom"
};

// The label value of the method a call names.
inline constexpr char kOtherMethod[] = "_OTHER";

// "NOT_FOUND" etc.
const char* GrpcCodeName(grpc::StatusCode code);

}  // namespace hotel
