// A gRPC server interceptor, where tracing starts: it starts the server's span of each RPC
// (common/trace_context.h: the caller's `traceparent`, or a fresh trace, and the x-request-id the
// gateway forwards) in the call's server context (api/call_span.h), where the call runner finds it
// and carries it in the call's context (common/call_context.h) so every log line carries its ids; it answers with the
// span's `traceparent` in the initial metadata, logs a line for an RPC (service, method, status code, duration; never
// request bodies) as RpcLogPolicy says and records the metrics of every RPC. A method the server does not serve is
// recorded as "_OTHER": label values never come from what a client sends.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "common/config.h"
#include "observability/metrics.h"

namespace hotel {

// Which RPCs get a log line (docs/operations.md#log-volume): a line per call doubles what every
// REST request logs on top of the gateway's access line. Errors and slow calls are always logged, one in sample_every
// of the rest (1: all, 0: none), and admission refusals only in a summary line at most once a second: under overload a
// line each would cost more than the refusal itself.
struct RpcLogPolicy {
  int sample_every = 1;
  absl::Duration slow = absl::InfiniteDuration();

  // RPC_LOG_SAMPLE and RPC_LOG_SLOW.
  static RpcLogPolicy FromConfig(const Config& config) { return {config.rpc_log_sample, config.rpc_log_slow}; }
};

class RpcObserverFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  // services: the full names of the services served ("hotel.v1.RoomService"); their methods are
  // the label values.
  RpcObserverFactory(Metrics& metrics, const std::vector<std::string>& services, RpcLogPolicy log_policy = {});
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override;

  // Whether to log the call, counting it; refusals are counted for the summary line instead.
  bool ShouldLog(grpc::StatusCode code, absl::Duration duration, bool refused);

 private:
  Metrics& metrics_;
  absl::flat_hash_set<std::string> known_methods_;  // "/hotel.v1.RoomService/GetRoom"
  const RpcLogPolicy log_policy_;
  std::atomic<uint64_t> sampled_calls_{0};        // successful calls since start, for the sample
  std::atomic<int64_t> refusals_unlogged_{0};     // refusals not yet in a summary line
  std::atomic<int64_t> last_refusal_line_ns_{0};  // absl::GetCurrentTimeNanos() of the last one
};

// The label value of the method a call names.
inline constexpr char kOtherMethod[] = "_OTHER";

// "NOT_FOUND" etc.
const char* GrpcCodeName(grpc::StatusCode code);

}  // namespace hotel
