#include "api/gateway_metadata.h"

#include "absl/strings/str_cat.h"

namespace hotel::api {

void SetHttpStatus(grpc::ServerContextBase* context, int http_code) {
  if (context != nullptr) context->AddInitialMetadata("x-http-code", absl::StrCat(http_code));
}

std::string IfMatchHeader(const grpc::ServerContextBase* context) {
  if (context == nullptr) return "";
  const auto& metadata = context->client_metadata();
  auto it = metadata.find("if-match");
  return it == metadata.end() ? "" : std::string(it->second.data(), it->second.size());
}

}  // namespace hotel::api
