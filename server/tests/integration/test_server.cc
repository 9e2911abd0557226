#include "test_server.h"

#include <chrono>
#include <string>

#include "api/call_span.h"

namespace hotel::testing {

TestServer::TestServer(const std::vector<grpc::Service*>& services, Interceptors interceptors) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
  for (grpc::Service* service : services) builder.RegisterService(service);
  if (!interceptors.empty()) builder.experimental().SetInterceptorCreators(std::move(interceptors));
  builder.SetContextAllocator(std::make_unique<api::CallSpanContexts>());  // as the server's (app/grpc_server.cc)
  server_ = builder.BuildAndStart();
  channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(port_), grpc::InsecureChannelCredentials());
}

TestServer::~TestServer() {
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
}

}  // namespace hotel::testing
