// A gRPC server interceptor that starts the server's span of each RPC (common/trace_context.h:
// the caller's `traceparent`, or a fresh trace, and the x-request-id the gateway forwards), makes
// it the current request of the thread serving the call so every log line carries its ids,
// answers with the span's `traceparent` in the initial metadata, logs one line per RPC (service,
// method, status code, duration; never request bodies) and records the RPC's metrics.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include "observability/metrics.h"

namespace hotel {

class RpcObserverFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RpcObserverFactory(Metrics& metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override;

 private:
  Metrics& metrics_;
};

// "NOT_FOUND" etc.
const char* GrpcCodeName(grpc::StatusCode code);

}  // namespace hotel
