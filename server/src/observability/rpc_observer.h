// A gRPC server interceptor that starts the server's span of each RPC (common/trace_context.h:
// the caller's `traceparent`, or a fresh trace, and the x-request-id the gateway forwards), makes
// it the current request of the thread serving the call so every log line carries its ids,
// answers with the span's `traceparent` in the initial metadata, logs a line for an RPC (service,
// method, status code, duration; never request bodies) as RpcLogPolicy says and records the
// metrics of every RPC.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <atomic>
#include <cstdint>

#include "absl/time/time.h"
#include "observability/metrics.h"

namespace hotel {

// Which RPCs get a log line (docs/operations.md#log-volume): a line per call was ~350 bytes per
// REST request on top of the gateway's access line, 30 GB a day at 1,000 requests/s. Errors and
// slow calls are always logged, one in sample_every of the rest (1: all, 0: none), and
// admission refusals only in a summary line at most once a second: under overload a line each
// would cost more than the refusal itself.
struct RpcLogPolicy {
  int sample_every = 1;
  absl::Duration slow = absl::InfiniteDuration();
};

class RpcObserverFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RpcObserverFactory(Metrics& metrics, RpcLogPolicy log_policy = {})
      : metrics_(metrics), log_policy_(log_policy) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override;

  // Whether to log the call, counting it; refusals are counted for the summary line instead.
  bool ShouldLog(grpc::StatusCode code, absl::Duration duration, bool refused);

 private:
  Metrics& metrics_;
  const RpcLogPolicy log_policy_;
  std::atomic<uint64_t> sampled_calls_{0};        // successful calls since start, for the sample
  std::atomic<int64_t> refusals_unlogged_{0};     // refusals not yet in a summary line
  std::atomic<int64_t> last_refusal_line_ns_{0};  // absl::GetCurrentTimeNanos() of the last one
};

// "NOT_FOUND" etc.
const char* GrpcCodeName(grpc::StatusCode code);

}  // namespace hotel
