// Opaque keyset cursors (AIP-158). A token names the list it belongs to and a fingerprint of
// that list's filters, so a token replayed against another list or other filters is refused
// instead of silently returning the wrong page.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hotel {

inline constexpr int kDefaultPageSize = 50;
inline constexpr int kMaxPageSize = 500;

struct PageToken {
  std::string list;              // e.g. "rooms"
  std::string fingerprint;       // of the filters, see FilterFingerprint
  std::vector<std::string> key;  // sort key of the last record returned
};

std::string EncodePageToken(const PageToken& token);
// INVALID_ARGUMENT naming page_token, reason INVALID_PAGE_TOKEN, with description.
absl::Status InvalidPageToken(std::string description = "is not a token returned by this service");
// INVALID_ARGUMENT (field page_token, reason INVALID_PAGE_TOKEN) for a malformed token or one
// issued for another list or other filters. An empty token decodes to an empty key.
absl::StatusOr<PageToken> DecodePageToken(absl::string_view encoded, absl::string_view list,
                                          absl::string_view fingerprint);

// Stable across processes and builds (FNV-1a), unlike std::hash.
std::string FilterFingerprint(absl::string_view canonical_filters);

// 0 → default, above the maximum → clamped, negative → INVALID_ARGUMENT.
absl::StatusOr<int> EffectivePageSize(int requested);

}  // namespace hotel
