// grpc.reflection.v1.ServerReflection beside the v1alpha service gRPC 1.51 ships: clients that
// speak only v1 (newer grpcurl, grpcui, Postman) can list and describe the services. Adapted from
// gRPC's v1alpha implementation (proto_server_reflection.cc); answers from the generated
// descriptor pool, which also holds grpc.health.v1 so that Health can be described.
#pragma once

#include <google/protobuf/descriptor.h>
#include <grpcpp/grpcpp.h>

#include <string>
#include <unordered_set>
#include <vector>

#include "grpc/reflection/v1/reflection.grpc.pb.h"

namespace hotel::api {

class ReflectionV1Service final : public grpc::reflection::v1::ServerReflection::Service {
 public:
  // services: full names of every service the server exposes (ListServices answers them).
  explicit ReflectionV1Service(std::vector<std::string> services);

  grpc::Status ServerReflectionInfo(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<grpc::reflection::v1::ServerReflectionResponse,
                               grpc::reflection::v1::ServerReflectionRequest>* stream) override;

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

}  // namespace hotel::api
