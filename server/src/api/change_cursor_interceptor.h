// Stamps every list response with the change feed's cursor (`change_cursor`, docs/changes.md)
// without each handler doing it: any response message with a string field of that name gets it.
//
// The position is sampled when the request has arrived, before the handler reads anything, and is one
// whose changes had all committed by then; so the list (read later) contains them, and watching
// after the cursor misses nothing that commits afterwards. At least once: a change committed
// between the sample and the read is in the list and will be delivered again.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <cstdint>
#include <functional>
#include <optional>

namespace hotel::api {

class ChangeCursorInterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  // position: the newest change-log position known committed, nullopt while unknown (then the
  // field stays empty).
  explicit ChangeCursorInterceptorFactory(std::function<std::optional<int64_t>()> position)
      : position_(std::move(position)) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override;

 private:
  const std::function<std::optional<int64_t>()> position_;
};

// The protobuf field number of `change_cursor` in the response of method ("/pkg.Service/Method"),
// 0 when it has none.
int ChangeCursorFieldNumber(const char* method);

}  // namespace hotel::api
