#include "webhooks/webhook_url.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/errors.h"

namespace hotel::webhooks {

namespace {

// The address of an IP literal host; family 0 when it is none.
int ParseAddress(const std::string& host, std::array<unsigned char, 16>* out) {
  if (inet_pton(AF_INET, host.c_str(), out->data()) == 1) return AF_INET;
  if (inet_pton(AF_INET6, host.c_str(), out->data()) == 1) return AF_INET6;
  return 0;
}

bool InPrefix(const std::array<unsigned char, 16>& a, const std::array<unsigned char, 16>& b, int prefix) {
  for (int i = 0; i < prefix / 8; ++i) {
    if (a[i] != b[i]) return false;
  }
  if (prefix % 8 == 0) return true;
  const unsigned char mask = static_cast<unsigned char>(0xff << (8 - prefix % 8));
  return (a[prefix / 8] & mask) == (b[prefix / 8] & mask);
}

bool IsHostNameChar(char c) { return absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_'; }

}  // namespace

absl::StatusOr<WebhookUrl> ParseWebhookUrl(absl::string_view field, absl::string_view url) {
  const std::string name(field);
  if (url.empty()) return InvalidField(name, "is required: the endpoint's http:// or https:// URL");
  if (url.size() > kMaxUrlLength)
    return InvalidField(name, absl::StrCat("must be at most ", kMaxUrlLength, " characters"));
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return InvalidField(name, "must not contain spaces or control characters");
  }
  WebhookUrl parsed;
  absl::string_view rest = url;
  if (absl::StartsWithIgnoreCase(rest, "https://")) {
    parsed.scheme = "https";
    rest.remove_prefix(8);
  } else if (absl::StartsWithIgnoreCase(rest, "http://")) {
    parsed.scheme = "http";
    rest.remove_prefix(7);
  } else {
    return InvalidField(name, "must be an absolute http:// or https:// URL");
  }
  absl::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (absl::StrContains(authority, '@')) return InvalidField(name, "must not contain user information (user@host)");
  absl::string_view host = authority;
  absl::string_view port;
  if (absl::ConsumePrefix(&host, "[")) {
    const size_t close = host.find(']');
    if (close == absl::string_view::npos) return InvalidField(name, "has an unterminated IPv6 address");
    absl::string_view after = host.substr(close + 1);
    host = host.substr(0, close);
    if (!after.empty() && !absl::ConsumePrefix(&after, ":")) return InvalidField(name, "has a malformed host");
    port = after;
    std::array<unsigned char, 16> ignored{};
    if (inet_pton(AF_INET6, std::string(host).c_str(), ignored.data()) != 1) {
      return InvalidField(name, "has a malformed IPv6 address");
    }
  } else {
    const size_t colon = host.rfind(':');
    if (colon != absl::string_view::npos) {
      port = host.substr(colon + 1);
      host = host.substr(0, colon);
    }
    if (!std::all_of(host.begin(), host.end(), IsHostNameChar)) return InvalidField(name, "has a malformed host");
  }
  if (host.empty()) return InvalidField(name, "has no host");
  if (!port.empty() && (!absl::SimpleAtoi(port, &parsed.port) || parsed.port < 1 || parsed.port > 65535)) {
    return InvalidField(name, "has a port that is not 1 to 65535");
  }
  parsed.host = absl::AsciiStrToLower(host);
  return parsed;
}

absl::StatusOr<AllowList> AllowList::Parse(absl::string_view spec) {
  AllowList list;
  list.spec_ = std::string(spec);
  for (absl::string_view entry : absl::StrSplit(spec, ',', absl::SkipWhitespace())) {
    entry = absl::StripAsciiWhitespace(entry);
    std::string lower = absl::AsciiStrToLower(entry);
    if (absl::StartsWith(lower, "*.")) {
      list.domains_.push_back(lower.substr(1));
      continue;
    }
    std::string address = lower;
    int prefix = -1;
    if (const size_t slash = lower.find('/'); slash != std::string::npos) {
      address = lower.substr(0, slash);
      if (!absl::SimpleAtoi(lower.substr(slash + 1), &prefix)) {
        return absl::InvalidArgumentError(absl::StrCat("WEBHOOK_ALLOWED_HOSTS: bad network ", entry));
      }
    }
    Network network;
    network.family = ParseAddress(address, &network.address);
    if (network.family == 0) {
      if (prefix >= 0 || address.empty() || !std::all_of(address.begin(), address.end(), IsHostNameChar)) {
        return absl::InvalidArgumentError(absl::StrCat("WEBHOOK_ALLOWED_HOSTS: bad entry ", entry));
      }
      list.names_.push_back(address);
      continue;
    }
    const int bits = network.family == AF_INET ? 32 : 128;
    network.prefix = prefix < 0 ? bits : prefix;
    if (network.prefix > bits)
      return absl::InvalidArgumentError(absl::StrCat("WEBHOOK_ALLOWED_HOSTS: bad prefix ", entry));
    list.networks_.push_back(network);
  }
  return list;
}

bool AllowList::Allows(absl::string_view host_view) const {
  const std::string host = absl::AsciiStrToLower(host_view);
  std::array<unsigned char, 16> address{};
  if (const int family = ParseAddress(host, &address); family != 0) {
    return std::any_of(networks_.begin(), networks_.end(),
                       [&](const Network& n) { return n.family == family && InPrefix(n.address, address, n.prefix); });
  }
  if (std::find(names_.begin(), names_.end(), host) != names_.end()) return true;
  return std::any_of(domains_.begin(), domains_.end(), [&](const std::string& domain) {
    return absl::EndsWith(host, domain) || host == domain.substr(1);
  });
}

absl::Status CheckDestination(absl::string_view field, absl::string_view url, const AllowList& allow_list) {
  auto parsed = ParseWebhookUrl(field, url);
  if (!parsed.ok()) return parsed.status();
  if (allow_list.Allows(parsed->host)) return absl::OkStatus();
  return InvalidField(std::string(field),
                      ValidUtf8(absl::StrCat("host ", parsed->host,
                                             " is not on the allow-list of webhook destinations "
                                             "(WEBHOOK_ALLOWED_HOSTS: ",
                                             allow_list.spec(), ")")),
                      "WEBHOOK_URL_NOT_ALLOWED");
}

}  // namespace hotel::webhooks
