#include "common/page_token.h"

#include <cstdint>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/errors.h"
#include "common/token_seal.h"

namespace hotel {
namespace {

// p1 tokens (releases up to 1.3) carried no seal; they are refused with a message that says so.
constexpr absl::string_view kVersion = "p2";
constexpr absl::string_view kUnsealedVersion = "p1";
constexpr char kSeparator = '\x1f';  // ASCII unit separator: cannot occur in our keys

}  // namespace

absl::Status InvalidPageToken(std::string description) {
  return InvalidField("page_token", std::move(description), "INVALID_PAGE_TOKEN");
}

std::string EncodePageToken(const PageToken& token) {
  std::vector<absl::string_view> parts = {kVersion, token.list, token.fingerprint};
  for (const auto& k : token.key) parts.push_back(k);
  return absl::WebSafeBase64Escape(SealToken(absl::StrJoin(parts, std::string(1, kSeparator))));
}

absl::StatusOr<PageToken> DecodePageToken(absl::string_view encoded, absl::string_view list,
                                          absl::string_view fingerprint) {
  PageToken token{std::string(list), std::string(fingerprint), {}};
  if (encoded.empty()) return token;
  if (encoded.size() > 2048) return InvalidPageToken();
  const std::optional<std::string> sealed = StrictWebSafeBase64Unescape(encoded);
  if (!sealed) return InvalidPageToken();
  const std::optional<std::string> raw = OpenToken(*sealed);
  if (!raw) {
    if (absl::StartsWith(*sealed, absl::StrCat(kUnsealedVersion, std::string(1, kSeparator)))) {
      return InvalidPageToken("was issued by an earlier release; list again from the first page (no page_token)");
    }
    return InvalidPageToken();
  }
  std::vector<std::string> parts = absl::StrSplit(*raw, kSeparator);
  if (parts.size() < 4 || parts[0] != kVersion) return InvalidPageToken();
  if (parts[1] != list) return InvalidPageToken("was issued for another list");
  if (parts[2] != fingerprint)
    return InvalidPageToken("was issued for other filters; repeat the same filters when paging");
  token.key.assign(parts.begin() + 3, parts.end());
  for (const std::string& value : token.key) {
    // PostgreSQL refuses such text (SQLSTATE 22021, 500 before): a forged token, never ours.
    if (!IsValidUtf8(value) || value.find('\0') != std::string::npos) return InvalidPageToken();
  }
  return token;
}

std::string FilterFingerprint(absl::string_view canonical_filters) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : canonical_filters) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return absl::StrFormat("%016x", hash);
}

absl::StatusOr<int> EffectivePageSize(int requested) {
  if (requested < 0) return InvalidField("page_size", "must not be negative");
  if (requested == 0) return kDefaultPageSize;
  return requested > kMaxPageSize ? kMaxPageSize : requested;
}

}  // namespace hotel
