// The services table: every gRPC service the server serves, once. It builds each service from the
// server's parts (app/components.h) and drives registration (app/grpc_server.h), reflection's
// list, the RPC observer's and the health names grpc.health.v1 reports. Adding an area's service
// is one row here (docs/architecture.md, "Add an area"); services_table_test fails when a service
// of proto/hotel/v1 has none.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

namespace hotel::app {

struct Components;

struct ServiceRow {
  std::string name;  // its full name, as the protos declare it
  // Reported by grpc.health.v1 under its name, following the database (the orchestrator's and
  // the gateway's readiness); metrics and reflection answer from memory and are not.
  bool health_checked;
  // Builds its instance from the parts built before the services (Components builds every row's).
  std::unique_ptr<grpc::Service> (*build)(Components&);
};

const std::vector<ServiceRow>& ServicesTable();

// The names reflection lists and the RPC observer knows: the table's and gRPC's own health service.
std::vector<std::string> ServedNames();

// The names grpc.health.v1 reports the database's state under: "" (the server as a whole) and
// every health-checked row's.
std::vector<std::string> HealthNames();

}  // namespace hotel::app
