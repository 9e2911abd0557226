#include "observability/rpc_observer.h"

#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "api/admission.h"
#include "api/call_span.h"
#include "common/call_context.h"
#include "common/log.h"
#include "common/tracing.h"
#include "google/protobuf/descriptor.h"

namespace hotel {
namespace {

using grpc::experimental::InterceptionHookPoints;

class RpcObserver : public grpc::experimental::Interceptor {
 public:
  RpcObserver(grpc::experimental::ServerRpcInfo* info, Metrics& metrics, RpcObserverFactory& factory, bool known)
      : method_(info->method() != nullptr ? info->method() : ""),
        label_(known ? method_ : absl::string_view(kOtherMethod)),
        metrics_(metrics),
        factory_(factory),
        start_(absl::Now()) {
    if (api::CallSpan* in_context = api::CallSpanOf(info->server_context())) call_ = &in_context->arriving;
    // "/hotel.v1.RoomService/GetRoom": rpc.service "hotel.v1.RoomService", rpc.method "GetRoom".
    const size_t slash = method_.rfind('/');
    if (slash != absl::string_view::npos && slash > 0) {
      rpc_service_ = method_.substr(1, slash - 1);
      rpc_method_ = method_.substr(slash + 1);
    } else {
      rpc_method_ = method_;
    }
    if (!known) {  // a client's text: bounded in the log line too
      rpc_service_ = rpc_service_.substr(0, 128);
      rpc_method_ = rpc_method_.substr(0, 128);
    }
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      const auto* metadata = methods->GetRecvInitialMetadata();
      absl::string_view traceparent, request_id;
      if (auto it = metadata->find("traceparent"); it != metadata->end()) traceparent = View(it->second);
      if (auto it = metadata->find("x-request-id"); it != metadata->end()) request_id = View(it->second);
      // The server's hop of the trace, in the call's server context: the call runner runs the call's
      // body under it, so every line logged while the call runs carries its ids.
      call_->span.emplace(traceparent, request_id);
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_INITIAL_METADATA) && call_->span) {
      // gRPC callers can quote the server's span (the gateway answers with its own).
      methods->GetSendInitialMetadata()->emplace("traceparent", call_->span->TraceParentHeader());
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      const grpc::Status status = methods->GetSendStatus();
      ScopedCallContext in_call(call_);  // for the line's trace ids, on whichever thread finishes it
      const absl::Duration duration = absl::Now() - start_;
      const double seconds = absl::ToDoubleSeconds(duration);
      const char* code = GrpcCodeName(status.error_code());
      metrics_.RecordRpc(label_, code, seconds);
      // An admission refusal, told by its message: a database outage is UNAVAILABLE too, and logged.
      static const std::string kRefusal(api::AdmissionControl::Overloaded().message());
      const bool refused = status.error_code() == grpc::StatusCode::UNAVAILABLE && status.error_message() == kRefusal;
      ExportRpcSpan(status, code);
      if (factory_.ShouldLog(status.error_code(), duration, refused)) {
        LogInfo("rpc", {{"rpc.system", "grpc"},
                        {"rpc.service", rpc_service_},
                        {"rpc.method", rpc_method_},
                        {"rpc.grpc.status_code", static_cast<int>(status.error_code())},
                        {"duration_ms", seconds * 1000}});
      }
    }
    methods->Proceed();
  }

 private:
  static absl::string_view View(grpc::string_ref value) { return {value.data(), value.size()}; }

  // The server span of the RPC (semantic conventions for RPC spans), when its trace is sampled:
  // the call's span as the trace backend sees it, from arrival to the status. Its children are
  // the admission wait (api/call_runner.cc) and the database's spans (db/pool.cc).
  void ExportRpcSpan(const grpc::Status& status, const char* code) {
    if (!call_->span || !call_->span->sampled() || !TracingEnabled()) return;
    const RequestSpan& span = *call_->span;
    auto data = std::make_unique<SpanData>();
    std::memcpy(data->trace_id.data(), span.trace_id().data(), kTraceIdLength);
    std::memcpy(data->span_id.data(), span.span_id().data(), kSpanIdLength);
    if (span.continued()) {
      std::memcpy(data->parent_span_id.data(), span.parent_span_id().data(), kSpanIdLength);
      data->has_parent = true;
    }
    data->name = std::string(absl::StripPrefix(label_, "/"));
    data->kind = SpanKind::kServer;
    data->start_unix_nanos = absl::ToUnixNanos(start_);
    data->end_unix_nanos = absl::GetCurrentTimeNanos();
    data->attributes.reserve(5);
    data->attributes.emplace_back("rpc.system", std::string("grpc"));
    data->attributes.emplace_back("rpc.service", std::string(rpc_service_));
    data->attributes.emplace_back("rpc.method", std::string(rpc_method_));
    data->attributes.emplace_back("rpc.grpc.status_code", static_cast<int64_t>(status.error_code()));
    if (!span.request_id().empty()) data->attributes.emplace_back("hotel.request_id", std::string(span.request_id()));
    switch (status.error_code()) {  // a server span's errors, as the conventions list them
      case grpc::StatusCode::UNKNOWN:
      case grpc::StatusCode::DEADLINE_EXCEEDED:
      case grpc::StatusCode::UNIMPLEMENTED:
      case grpc::StatusCode::INTERNAL:
      case grpc::StatusCode::UNAVAILABLE:
      case grpc::StatusCode::DATA_LOSS:
        data->error = true;
        data->status_message = code;
        break;
      default:
        break;
    }
    ExportSpan(std::move(data));
  }

  const absl::string_view method_;  // lives as long as the call
  const absl::string_view label_;   // method_ when the server serves it, else kOtherMethod
  absl::string_view rpc_service_;
  absl::string_view rpc_method_;
  Metrics& metrics_;
  RpcObserverFactory& factory_;
  const absl::Time start_;
  // Only its span. A method no service has has no room for it in its server context (api/call_span.h):
  // it lives here then.
  CallContext unserved_;
  CallContext* call_ = &unserved_;  // the call's server context's, or unserved_
};

}  // namespace

RpcObserverFactory::RpcObserverFactory(Metrics& metrics, const std::vector<std::string>& services,
                                       RpcLogPolicy log_policy)
    : metrics_(metrics), log_policy_(log_policy) {
  for (const std::string& name : services) {
    const google::protobuf::ServiceDescriptor* service =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(name);
    if (service == nullptr) continue;
    for (int i = 0; i < service->method_count(); ++i) {
      known_methods_.insert(absl::StrCat("/", name, "/", service->method(i)->name()));
    }
  }
  // gRPC's own health service, whose messages are not in the generated pool.
  known_methods_.insert("/grpc.health.v1.Health/Check");
  known_methods_.insert("/grpc.health.v1.Health/Watch");
}

grpc::experimental::Interceptor* RpcObserverFactory::CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) {
  const bool known = info->method() != nullptr && known_methods_.contains(absl::string_view(info->method()));
  return new RpcObserver(info, metrics_, *this, known);
}

bool RpcObserverFactory::ShouldLog(grpc::StatusCode code, absl::Duration duration, bool refused) {
  if (refused) {
    // One summary line a second at most, written by the refusal that finds the last one old.
    refusals_unlogged_.fetch_add(1, std::memory_order_relaxed);
    const int64_t now = absl::GetCurrentTimeNanos();
    int64_t last = last_refusal_line_ns_.load(std::memory_order_relaxed);
    if (now - last >= absl::ToInt64Nanoseconds(absl::Seconds(1)) &&
        last_refusal_line_ns_.compare_exchange_strong(last, now, std::memory_order_relaxed)) {
      LogWarning("rpcs refused: overloaded", {{"refused", refusals_unlogged_.exchange(0, std::memory_order_relaxed)}});
    }
    return false;
  }
  if (code != grpc::StatusCode::OK || duration >= log_policy_.slow) return true;
  if (log_policy_.sample_every <= 0) return false;
  return sampled_calls_.fetch_add(1, std::memory_order_relaxed) % log_policy_.sample_every == 0;
}

const char* GrpcCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN";
  }
}

}  // namespace hotel
