#include "api/client_identity.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace hotel::api {
namespace {

absl::string_view Metadata(const grpc::ServerContextBase& context, const char* key) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(key);
  return it == metadata.end() ? absl::string_view() : absl::string_view(it->second.data(), it->second.size());
}

// Bounded, so a key costs the same whatever a client sends.
std::string Bounded(absl::string_view key) {
  return std::string(absl::StripAsciiWhitespace(key.substr(0, kMaxClientKeyLength)));
}

}  // namespace

std::string ClientKey(const grpc::ServerContextBase& context) {
  if (absl::string_view id = Metadata(context, "x-client-id"); !id.empty()) return absl::StrCat("id:", Bounded(id));
  if (absl::string_view forwarded = Metadata(context, "x-forwarded-for"); !forwarded.empty()) {
    // The first address is the original client's; proxies append theirs.
    return absl::StrCat("ip:", Bounded(forwarded.substr(0, forwarded.find(','))));
  }
  // "ipv4:127.0.0.1:5432", "ipv6:[::1]:5432": the address without the port.
  std::string peer = context.peer();
  const size_t colon = peer.rfind(':');
  if (colon != std::string::npos && colon > peer.find(':')) peer.resize(colon);
  return absl::StrCat("ip:", Bounded(peer.substr(peer.find(':') + 1)));
}

}  // namespace hotel::api
