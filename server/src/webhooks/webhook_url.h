// Webhook destinations: parsing a subscription's URL and the allow-list of hosts and networks it
// may point at (WEBHOOK_ALLOWED_HOSTS), so the service cannot be made to call arbitrary
// addresses (pure, unit-tested).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hotel::webhooks {

inline constexpr size_t kMaxUrlLength = 2000;

struct WebhookUrl {
  std::string scheme;  // "http" or "https"
  std::string host;    // lower case; an IPv6 literal without its brackets
  int port = 0;        // 0: the scheme's default
};

// An absolute http(s) URL without user information, at most kMaxUrlLength characters, with no
// spaces or control characters. INVALID_ARGUMENT naming field otherwise.
absl::StatusOr<WebhookUrl> ParseWebhookUrl(absl::string_view field, absl::string_view url);

// Comma-separated entries: a host name ("hooks.internal"), a domain and its subdomains
// ("*.hooks.internal"), an IP address or a network in CIDR notation ("10.20.0.0/16", "::1").
// A host name in a URL is allowed only when listed (by name or domain), never by what it
// resolves to; an IP literal when it lies in a listed network.
class AllowList {
 public:
  // The default for local runs: loopback only.
  static constexpr absl::string_view kLoopback = "localhost,127.0.0.0/8,::1";

  static absl::StatusOr<AllowList> Parse(absl::string_view spec);
  bool Allows(absl::string_view host) const;
  const std::string& spec() const { return spec_; }

 private:
  struct Network {
    int family = 0;  // AF_INET or AF_INET6
    std::array<unsigned char, 16> address{};
    int prefix = 0;
  };
  std::string spec_;
  std::vector<std::string> names_;    // exact host names
  std::vector<std::string> domains_;  // ".suffix": subdomains of it, and the domain itself
  std::vector<Network> networks_;
};

// INVALID_ARGUMENT naming field (reason WEBHOOK_URL_NOT_ALLOWED) unless url parses and its host is
// on allow_list.
absl::Status CheckDestination(absl::string_view field, absl::string_view url, const AllowList& allow_list);

}  // namespace hotel::webhooks
