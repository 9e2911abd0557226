#include "api/invalid_utf8.h"

#include <google/protobuf/stubs/logging.h>

#include <utility>

#include "api/handle_rpc.h"
#include "common/errors.h"
#include "common/log.h"

namespace hotel::api {
namespace {

// The field of the last UTF-8 parse failure on this thread. gRPC parses a request and runs the
// interceptors' POST_RECV_MESSAGE and PRE_SEND_STATUS hooks of a refused request on one thread.
thread_local std::string last_invalid_utf8_field;

void LogProtobufMessage(google::protobuf::LogLevel level, const char* filename, int line, const std::string& message) {
  std::string field = InvalidUtf8Field(message);
  if (!field.empty()) {
    // Expected client error: answered as INVALID_ARGUMENT by the interceptor; the per-RPC log line
    // records it.
    last_invalid_utf8_field = std::move(field);
    return;
  }
  std::initializer_list<LogField> fields = {
      {"source", "libprotobuf"}, {"file", filename ? filename : ""}, {"line", line}};
  if (level >= google::protobuf::LOGLEVEL_ERROR) {
    LogError(message, fields);
  } else if (level == google::protobuf::LOGLEVEL_WARNING) {
    LogWarning(message, fields);
  } else {
    LogInfo(message, fields);
  }
}

class InvalidUtf8Interceptor : public grpc::experimental::Interceptor {
 public:
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using Hook = grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(Hook::POST_RECV_MESSAGE)) Take();
    if (methods->QueryInterceptionHookPoint(Hook::PRE_SEND_STATUS)) {
      Take();
      // gRPC answers a request it could not parse with INTERNAL.
      if (!field_.empty() && !methods->GetSendStatus().ok()) {
        methods->ModifySendStatus(ToGrpcStatus(InvalidField(field_, "must be valid UTF-8 text")));
      }
    }
    methods->Proceed();
  }

 private:
  void Take() {
    if (!last_invalid_utf8_field.empty()) field_ = std::exchange(last_invalid_utf8_field, std::string());
  }

  std::string field_;
};

}  // namespace

std::string InvalidUtf8Field(const std::string& message) {
  // "String field 'hotel.v1.CreateIssueRequest.title' contains invalid UTF-8 data when parsing a
  // protocol buffer. ..."
  static constexpr char kPrefix[] = "String field '";
  const size_t start = message.find(kPrefix);
  if (start == std::string::npos || message.find("invalid UTF-8 data when parsing") == std::string::npos) return "";
  const size_t name_start = start + sizeof(kPrefix) - 1;
  const size_t name_end = message.find('\'', name_start);
  if (name_end == std::string::npos) return "";
  const std::string full = message.substr(name_start, name_end - name_start);
  const size_t dot = full.rfind('.');
  return dot == std::string::npos ? full : full.substr(dot + 1);
}

void InstallProtobufLogHandler() { google::protobuf::SetLogHandler(&LogProtobufMessage); }

grpc::experimental::Interceptor* InvalidUtf8InterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo*) {
  return new InvalidUtf8Interceptor();
}

}  // namespace hotel::api
