// The gRPC server: every row of the services table on the callback API (gRPC's default health
// service is too: one synchronous method would make a "hybrid" server whose polling stalls;
// docs/decisions.md), the interceptors, the connection limits and the listening port.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>

#include "absl/status/statusor.h"
#include "app/components.h"

namespace hotel::app {

struct ListeningServer {
  std::unique_ptr<grpc::Server> server;
  int port = 0;
};

// Builds the server, opens its port and starts serving; UNAVAILABLE naming the reason when the
// address cannot be bound.
absl::StatusOr<ListeningServer> Listen(Components& parts);

// The channel arguments that bound a connection's life (docs/operations.md, "Idle connections").
void SetConnectionLimits(const Config& config, grpc::ServerBuilder& builder);

}  // namespace hotel::app
