// Standard Webhooks signatures (https://www.standardwebhooks.com): the secret, `whsec_` and the
// base64 of random bytes, and the `webhook-signature` value of a message (pure, unit-tested
// against the specification's test vector).
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hotel::webhooks {

// Bytes of randomness in a new secret (the specification asks for 24 to 64).
inline constexpr int kSecretBytes = 32;

// A new secret: "whsec_" + base64 of kSecretBytes bytes from OpenSSL's CSPRNG.
std::string NewSecret();

// "v1,<base64 of HMAC-SHA256(key, id + "." + timestamp + "." + body)>", key being the
// base64-decoded part of secret after "whsec_". INVALID_ARGUMENT for a secret that is no such text.
absl::StatusOr<std::string> SignatureV1(absl::string_view secret, absl::string_view id, int64_t timestamp,
                                        absl::string_view body);

}  // namespace hotel::webhooks
