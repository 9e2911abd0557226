// One signed POST to a webhook endpoint with libcurl: no redirects, connect and total timeouts,
// the answer's status, Retry-After and first bytes kept for the delivery log.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "common/config.h"

namespace hotel::webhooks {

// Bytes of a response body kept for the delivery log.
inline constexpr size_t kResponsePrefixBytes = 256;

struct HttpOptions {
  absl::Duration connect_timeout = absl::Seconds(2);
  absl::Duration total_timeout = absl::Seconds(10);

  // A ping's: it answers within the request's own deadline (write_timeout).
  static HttpOptions PingFromConfig(const Config& config);
};

struct HttpResult {
  int status = 0;                             // the HTTP status; 0 when none came
  std::string error;                          // when none came: "dns", "connect", "timeout", "tls", "protocol"
  std::string error_detail;                   // libcurl's message
  std::string response_prefix;                // the first kResponsePrefixBytes of the body
  std::optional<absl::Duration> retry_after;  // Retry-After in seconds, when present
  absl::Duration duration;

  // A 2xx: the receiver took the delivery.
  bool accepted() const { return status >= 200 && status < 300; }
  // "HTTP 503", "timeout", ...: what the delivery log and error messages show.
  std::string Describe() const;
};

using Headers = std::vector<std::pair<std::string, std::string>>;

// POSTs body as application/json with headers; never follows a redirect (a 3xx is a failure).
HttpResult PostJson(const std::string& url, const Headers& headers, const std::string& body,
                    const HttpOptions& options);

}  // namespace hotel::webhooks
