// A real gRPC server on a free loopback port (port 0), for tests of what runs inside one, and a
// channel to it.
#pragma once

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/server_interceptor.h>

#include <memory>
#include <vector>

namespace hotel::testing {

class TestServer {
 public:
  using Interceptors = std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>;
  explicit TestServer(const std::vector<grpc::Service*>& services, Interceptors interceptors = {});
  ~TestServer();  // shuts down, giving calls in flight 5 s

  int port() const { return port_; }
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }

 private:
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

}  // namespace hotel::testing
