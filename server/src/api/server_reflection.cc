#include "api/server_reflection.h"

#include <google/protobuf/descriptor.pb.h>

#include <functional>
#include <utility>

#include "grpc/health/v1/health.pb.h"

namespace hotel::api {

using grpc::Status;
using grpc::StatusCode;
using grpc::reflection::v1::ServerReflectionRequest;
using grpc::reflection::v1::ServerReflectionResponse;

namespace {

// One reflection stream: each request read is answered with one response, in order.
template <typename Request, typename Response>
class ReflectionStream final : public grpc::ServerBidiReactor<Request, Response> {
 public:
  explicit ReflectionStream(std::function<void(const Request&, Response*)> answer) : answer_(std::move(answer)) {
    this->StartRead(&request_);
  }
  void OnReadDone(bool ok) override {
    if (!ok) return this->Finish(Status::OK);  // the client is done asking
    response_.Clear();
    answer_(request_, &response_);
    this->StartWrite(&response_);
  }
  void OnWriteDone(bool ok) override {
    if (!ok) return this->Finish(Status::OK);
    this->StartRead(&request_);
  }
  void OnDone() override { delete this; }

 private:
  const std::function<void(const Request&, Response*)> answer_;
  Request request_;
  Response response_;
};

}  // namespace

grpc::ServerBidiReactor<ServerReflectionRequest, ServerReflectionResponse>* ReflectionV1Service::ServerReflectionInfo(
    grpc::CallbackServerContext*) {
  return new ReflectionStream<ServerReflectionRequest, ServerReflectionResponse>(
      [this](const ServerReflectionRequest& request, ServerReflectionResponse* response) {
        reflection_.Answer(request, response);
      });
}

grpc::ServerBidiReactor<grpc::reflection::v1alpha::ServerReflectionRequest,
                        grpc::reflection::v1alpha::ServerReflectionResponse>*
ReflectionV1AlphaService::ServerReflectionInfo(grpc::CallbackServerContext*) {
  using AlphaRequest = grpc::reflection::v1alpha::ServerReflectionRequest;
  using AlphaResponse = grpc::reflection::v1alpha::ServerReflectionResponse;
  return new ReflectionStream<AlphaRequest, AlphaResponse>([this](const AlphaRequest& alpha, AlphaResponse* out) {
    // The same wire format: v1alpha's bytes read as v1, and back.
    ServerReflectionRequest request;
    request.ParseFromString(alpha.SerializeAsString());
    ServerReflectionResponse response;
    reflection_.Answer(request, &response);
    out->ParseFromString(response.SerializeAsString());
  });
}

ServerReflection::ServerReflection(std::vector<std::string> services)
    : pool_(google::protobuf::DescriptorPool::generated_pool()), services_(std::move(services)) {
  // Referencing the Health messages links grpc/health/v1/health.pb.cc into the server, which
  // registers its descriptor in the generated pool: reflection can then describe
  // grpc.health.v1.Health (gRPC's own health service is built without C++ protobuf classes).
  (void)grpc::health::v1::HealthCheckRequest::descriptor();
}

void ServerReflection::Answer(const ServerReflectionRequest& request, ServerReflectionResponse* response) const {
  Status status;
  switch (request.message_request_case()) {
    case ServerReflectionRequest::kFileByFilename:
      status = FileByName(request.file_by_filename(), response);
      break;
    case ServerReflectionRequest::kFileContainingSymbol:
      status = FileContainingSymbol(request.file_containing_symbol(), response);
      break;
    case ServerReflectionRequest::kFileContainingExtension:
      status = FileContainingExtension(request.file_containing_extension(), response);
      break;
    case ServerReflectionRequest::kAllExtensionNumbersOfType:
      status = AllExtensionNumbers(request.all_extension_numbers_of_type(),
                                   response->mutable_all_extension_numbers_response());
      break;
    case ServerReflectionRequest::kListServices:
      for (const auto& name : services_) response->mutable_list_services_response()->add_service()->set_name(name);
      break;
    default:
      status = Status(StatusCode::UNIMPLEMENTED, "unknown reflection request");
  }
  if (!status.ok()) {
    response->clear_message_response();
    response->mutable_error_response()->set_error_code(status.error_code());
    response->mutable_error_response()->set_error_message(status.error_message());
  }
  response->set_valid_host(request.host());
  *response->mutable_original_request() = request;
}

Status ServerReflection::FileByName(const std::string& name, ServerReflectionResponse* response) const {
  const google::protobuf::FileDescriptor* file = pool_->FindFileByName(name);
  if (file == nullptr) return Status(StatusCode::NOT_FOUND, "File not found.");
  std::unordered_set<std::string> seen;
  AddFile(file, response, &seen);
  return Status::OK;
}

Status ServerReflection::FileContainingSymbol(const std::string& symbol, ServerReflectionResponse* response) const {
  const google::protobuf::FileDescriptor* file = pool_->FindFileContainingSymbol(symbol);
  if (file == nullptr) return Status(StatusCode::NOT_FOUND, "Symbol not found.");
  std::unordered_set<std::string> seen;
  AddFile(file, response, &seen);
  return Status::OK;
}

Status ServerReflection::FileContainingExtension(const grpc::reflection::v1::ExtensionRequest& request,
                                                 ServerReflectionResponse* response) const {
  const google::protobuf::Descriptor* type = pool_->FindMessageTypeByName(request.containing_type());
  if (type == nullptr) return Status(StatusCode::NOT_FOUND, "Type not found.");
  const google::protobuf::FieldDescriptor* extension = pool_->FindExtensionByNumber(type, request.extension_number());
  if (extension == nullptr) return Status(StatusCode::NOT_FOUND, "Extension not found.");
  std::unordered_set<std::string> seen;
  AddFile(extension->file(), response, &seen);
  return Status::OK;
}

Status ServerReflection::AllExtensionNumbers(const std::string& type_name,
                                             grpc::reflection::v1::ExtensionNumberResponse* response) const {
  const google::protobuf::Descriptor* type = pool_->FindMessageTypeByName(type_name);
  if (type == nullptr) return Status(StatusCode::NOT_FOUND, "Type not found.");
  std::vector<const google::protobuf::FieldDescriptor*> extensions;
  pool_->FindAllExtensions(type, &extensions);
  for (const auto* extension : extensions) response->add_extension_number(extension->number());
  response->set_base_type_name(type_name);
  return Status::OK;
}

void ServerReflection::AddFile(const google::protobuf::FileDescriptor* file, ServerReflectionResponse* response,
                               std::unordered_set<std::string>* seen) const {
  if (!seen->insert(file->name()).second) return;
  google::protobuf::FileDescriptorProto proto;
  file->CopyTo(&proto);
  response->mutable_file_descriptor_response()->add_file_descriptor_proto(proto.SerializeAsString());
  for (int i = 0; i < file->dependency_count(); ++i) AddFile(file->dependency(i), response, seen);
}

}  // namespace hotel::api
