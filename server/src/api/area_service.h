// The base of an area's gRPC service, as route_guide's callback service is written: the handlers
// are defined in the class (in the area's *_service.cc), each validating its request and calling
// the repository inside calls_.Run, and the area's header offers only a factory for the services
// table (app/services_table.cc).
#pragma once

#include "api/call_runner.h"
#include "db/pool.h"

namespace hotel::api {

// GrpcService: the generated service (hotel::v1::IssueService); Repository: the area's, on the
// request pool. Repositories hold no state but the pool, so each service has its own.
template <typename GrpcService, typename Repository>
class AreaService : public GrpcService::CallbackService {
 public:
  AreaService(db::ConnectionPool& pool, CallRunner& calls) : repository_(pool), calls_(calls) {}

 protected:
  Repository repository_;
  CallRunner& calls_;
};

}  // namespace hotel::api
