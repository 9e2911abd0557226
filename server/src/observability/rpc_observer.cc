#include "observability/rpc_observer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "common/log.h"

namespace hotel {
namespace {

using grpc::experimental::InterceptionHookPoints;

class RpcObserver : public grpc::experimental::Interceptor {
 public:
  RpcObserver(grpc::experimental::ServerRpcInfo* info, Metrics& metrics)
      : method_(info->method()), metrics_(metrics), start_(absl::Now()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      auto* metadata = methods->GetRecvInitialMetadata();
      if (auto it = metadata->find("x-request-id"); it != metadata->end()) {
        request_id_.assign(it->second.data(), std::min<size_t>(it->second.size(), 128));
      }
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      const grpc::Status status = methods->GetSendStatus();
      const double seconds = absl::ToDoubleSeconds(absl::Now() - start_);
      const char* code = GrpcCodeName(status.error_code());
      metrics_.RecordRpc(method_, code, seconds);
      LogInfo("rpc", {{"method", method_},
                      {"code", code},
                      {"duration_ms", absl::StrFormat("%.3f", seconds * 1000)},
                      {"request_id", request_id_}});
    }
    methods->Proceed();
  }

 private:
  const std::string method_;
  Metrics& metrics_;
  const absl::Time start_;
  std::string request_id_;
};

}  // namespace

grpc::experimental::Interceptor* RpcObserverFactory::CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) {
  return new RpcObserver(info, metrics_);
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
