#include "webhooks/webhook_signature.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdlib>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace hotel::webhooks {

namespace {
constexpr absl::string_view kSecretPrefix = "whsec_";
}  // namespace

std::string NewSecret() {
  unsigned char bytes[kSecretBytes];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) std::abort();  // no entropy: never sign with a weak key
  return absl::StrCat(kSecretPrefix,
                      absl::Base64Escape(absl::string_view(reinterpret_cast<const char*>(bytes), sizeof(bytes))));
}

absl::StatusOr<std::string> SignatureV1(absl::string_view secret, absl::string_view id, int64_t timestamp,
                                        absl::string_view body) {
  std::string key;
  if (!absl::StartsWith(secret, kSecretPrefix) || !absl::Base64Unescape(secret.substr(kSecretPrefix.size()), &key) ||
      key.empty()) {
    return absl::InvalidArgumentError("the signing secret is not whsec_ followed by base64");
  }
  const std::string message = absl::StrCat(id, ".", timestamp, ".", body);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest, &length) == nullptr) {
    return absl::InternalError("HMAC-SHA256 failed");
  }
  return absl::StrCat("v1,", absl::Base64Escape(absl::string_view(reinterpret_cast<const char*>(digest), length)));
}

}  // namespace hotel::webhooks
