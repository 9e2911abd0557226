// Who is calling, for fair shares (docs/operations.md, "Fair shares"): no client may hold what
// the others need. The caller's own name when it sends one (`x-client-id`, over REST the
// `X-Client-Id` header), else the address the gateway saw (`x-forwarded-for`), else the peer's
// address without its port. Nobody authenticates (the interface says so): a client that lies
// only spreads its own share; the server-wide limits still hold.
#pragma once

#include <grpcpp/server_context.h>

#include <string>

namespace hotel::api {

inline constexpr size_t kMaxClientKeyLength = 64;

std::string ClientKey(const grpc::ServerContextBase& context);

}  // namespace hotel::api
