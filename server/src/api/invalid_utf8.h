// Invalid UTF-8 in a string field of a gRPC request. protobuf refuses to parse such a message and
// logs a plain-text "[libprotobuf ERROR]" line, and gRPC answers INTERNAL with an empty message.
// InstallProtobufLogHandler routes protobuf's messages into the JSON log instead and remembers
// which field failed; InvalidUtf8InterceptorFactory turns that call's INTERNAL into
// INVALID_ARGUMENT naming the field (BadRequest), as for any other bad input.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <string>

namespace hotel::api {

// Call once at start-up, before serving.
void InstallProtobufLogHandler();

// The field name ("title") of a protobuf log message about invalid UTF-8 while parsing, or "".
std::string InvalidUtf8Field(const std::string& protobuf_message);

class InvalidUtf8InterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override;
};

}  // namespace hotel::api
