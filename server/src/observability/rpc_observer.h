// A gRPC server interceptor that logs one JSON line per RPC (method, code, duration and the
// x-request-id the gateway forwards; never request bodies) and records the RPC's metrics.
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
