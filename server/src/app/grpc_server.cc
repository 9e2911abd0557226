#include "app/grpc_server.h"

#include <grpcpp/health_check_service_interface.h>

#include <algorithm>

#include "api/call_methods.h"
#include "api/call_span.h"
#include "api/change_cursor_interceptor.h"
#include "api/invalid_utf8.h"
#include "app/services_table.h"
#include "common/listen_address.h"
#include "google/protobuf/descriptor.h"
#include "observability/rpc_observer.h"

namespace hotel::app {
namespace {

int Milliseconds(absl::Duration duration) {
  return static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(duration), INT32_MAX));
}

// Streams per connection: a backstop above what one connection needs at once (the watchers a
// gateway carries, up to 1,000, and twice the calls admitted or queued); without a bound, every
// call a flood opens waits in the server's memory instead of in its client until its deadline.
int MaxStreams(const Config& config, const api::AdmissionOptions& admission) {
  if (config.max_concurrent_streams > 0) return config.max_concurrent_streams;
  return std::min(config.change_max_watchers, 1000) + 2 * (admission.limit + admission.queue) + 32;
}

}  // namespace

void SetConnectionLimits(const Config& config, grpc::ServerBuilder& builder) {
  // A connection without calls ends after max_connection_idle, so idle connections (a client's
  // leftovers or a flood of them) cannot hold the server's memory for ever.
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, Milliseconds(config.max_connection_idle));
  // No age limit by default: change-feed streams are meant to live for hours, and an age limit
  // would end them all after its grace. Operators who need connections rebalanced set one; the
  // gateway and gRPC clients reconnect, and watchers resume after their cursor.
  if (config.max_connection_age > absl::ZeroDuration()) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS, Milliseconds(config.max_connection_age));
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS, Milliseconds(config.max_connection_age_grace));
  }
  // The server's pings find peers that vanished without closing (their watchers would hold
  // their slots until the next heartbeat failed to send).
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, Milliseconds(config.keepalive_time));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, Milliseconds(config.keepalive_timeout));
  // Clients' pings: allowed without calls too (so a client's keepalive never gets it a GOAWAY;
  // the idle limit still ends its connection), but no more often than the minimum interval.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             Milliseconds(config.keepalive_min_ping_interval));
}

absl::StatusOr<ListeningServer> Listen(Components& parts) {
  const Config& config = parts.settings.config;
  grpc::EnableDefaultHealthCheckService(true);
  api::InstallProtobufLogHandler();
  grpc::ServerBuilder builder;
  ListeningServer listening;
  // gRPC sets SO_REUSEPORT by default, which lets a second server on the same address start and
  // silently take half the connections. Off: a taken address is an error.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(config.listen, grpc::InsecureServerCredentials(), &listening.port);
  for (size_t i = 0; i < ServicesTable().size(); ++i) {
    const ServiceRow& row = ServicesTable()[i];
    builder.RegisterService(parts.services[i].get());
    // Each method's kind and descriptor, resolved once here rather than on every call.
    if (const auto* service = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(row.name)) {
      api::RegisterCallMethods(*service);
    }
  }
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  // First, so that the observer logs the corrected code of an invalid UTF-8 request.
  interceptors.push_back(std::make_unique<api::InvalidUtf8InterceptorFactory>());
  interceptors.push_back(
      std::make_unique<RpcObserverFactory>(parts.metrics, ServedNames(), RpcLogPolicy::FromConfig(config)));
  // The hub has read the log's head before the port opens (app/app.h), so every call finds a position.
  changes::ChangeHub& hub = parts.areas.change_hub;
  interceptors.push_back(std::make_unique<api::ChangeCursorInterceptorFactory>([&hub] { return hub.position(); }));
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  // Each call's server context has room for its span, which the observer starts and the runner runs under.
  builder.SetContextAllocator(std::make_unique<api::CallSpanContexts>());
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, MaxStreams(config, parts.calls.admission.options()));
  SetConnectionLimits(config, builder);
  listening.server = builder.BuildAndStart();
  if (!listening.server || listening.port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", config.listen, ": ", ListenError(config.listen)));
  }
  return listening;
}

}  // namespace hotel::app
