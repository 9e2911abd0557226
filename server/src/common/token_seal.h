// Page tokens and change cursors are opaque to clients (AIP-158) and sealed: a tag over their whole
// content, so a token that was cut, altered or assembled by hand is refused instead of naming
// another position. With keys configured (PAGE_TOKEN_KEYS, a Secret every replica shares) the tag
// is an HMAC-SHA256, which nobody without a key can forge; without keys it is a SHA-256 checksum,
// which catches damaged tokens (a broken URL-encoding layer) but not deliberate forgeries.
#pragma once

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hotel {

// Sets the keys once at start-up, before any token is sealed or opened: comma-separated, the first
// seals and every one opens (rotation: docs/operations.md). Empty: the unkeyed checksum.
// INVALID_ARGUMENT (field page_token_keys) for a key shorter than 16 bytes.
absl::Status ConfigureTokenSeal(absl::string_view keys);

// The payload followed by its tag.
std::string SealToken(absl::string_view payload);
// The payload when the tag is one of a configured key's (or the checksum); nullopt otherwise.
std::optional<std::string> OpenToken(absl::string_view sealed);

// base64url without padding; nullopt unless `text` is exactly the encoding of its bytes (a changed
// last character whose low bits base64 ignores is refused too).
std::optional<std::string> StrictWebSafeBase64Unescape(absl::string_view text);

}  // namespace hotel
