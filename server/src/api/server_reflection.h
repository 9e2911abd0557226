// gRPC server reflection, v1 and v1alpha, both ours and both on the callback API (gRPC 1.51's
// v1alpha plugin is synchronous, and one synchronous service makes the server a stalling "hybrid",
// docs/decisions.md). Clients that speak only v1 (newer grpcurl, grpcui, Postman) or only v1alpha
// (older tools) can list and describe the services. Adapted from gRPC's v1alpha implementation
// (proto_server_reflection.cc); answers from the generated descriptor pool, which also holds
// grpc.health.v1 so that Health can be described. v1alpha's messages are v1's under another
// package (the same fields and numbers), so one implementation answers both.
#pragma once

#include <google/protobuf/descriptor.h>
#include <grpcpp/grpcpp.h>

#include <string>
#include <unordered_set>
#include <vector>

#include "grpc/reflection/v1/reflection.grpc.pb.h"
#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"

namespace hotel::api {

// The answers, one request at a time.
class ServerReflection {
 public:
  // services: full names of every service the server exposes (ListServices answers them).
  explicit ServerReflection(std::vector<std::string> services);

  void Answer(const grpc::reflection::v1::ServerReflectionRequest& request,
              grpc::reflection::v1::ServerReflectionResponse* response) const;

 private:
  grpc::Status FileByName(const std::string& name, grpc::reflection::v1::ServerReflectionResponse* response) const;
  grpc::Status FileContainingSymbol(const std::string& symbol,
                                    grpc::reflection::v1::ServerReflectionResponse* response) const;
  grpc::Status FileContainingExtension(const grpc::reflection::v1::ExtensionRequest& request,
                                       grpc::reflection::v1::ServerReflectionResponse* response) const;
  grpc::Status AllExtensionNumbers(const std::string& type,
                                   grpc::reflection::v1::ExtensionNumberResponse* response) const;
  // Adds file and, recursively, its dependencies not yet sent in this response.
  void AddFile(const google::protobuf::FileDescriptor* file, grpc::reflection::v1::ServerReflectionResponse* response,
               std::unordered_set<std::string>* seen) const;

  const google::protobuf::DescriptorPool* pool_;
  std::vector<std::string> services_;
};

class ReflectionV1Service final : public grpc::reflection::v1::ServerReflection::CallbackService {
 public:
  explicit ReflectionV1Service(const ServerReflection& reflection) : reflection_(reflection) {}
  grpc::ServerBidiReactor<grpc::reflection::v1::ServerReflectionRequest,
                          grpc::reflection::v1::ServerReflectionResponse>*
  ServerReflectionInfo(grpc::CallbackServerContext* context) override;

 private:
  const ServerReflection& reflection_;
};

class ReflectionV1AlphaService final : public grpc::reflection::v1alpha::ServerReflection::CallbackService {
 public:
  explicit ReflectionV1AlphaService(const ServerReflection& reflection) : reflection_(reflection) {}
  grpc::ServerBidiReactor<grpc::reflection::v1alpha::ServerReflectionRequest,
                          grpc::reflection::v1alpha::ServerReflectionResponse>*
  ServerReflectionInfo(grpc::CallbackServerContext* context) override;

 private:
  const ServerReflection& reflection_;
};

}  // namespace hotel::api
