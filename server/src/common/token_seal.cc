#include "common/token_seal.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "common/errors.h"

namespace hotel {
namespace {

constexpr size_t kTagBytes = 12;
constexpr size_t kMinKeyBytes = 16;

// Written once by ConfigureTokenSeal before the server starts its threads; read-only afterwards.
std::vector<std::string>& Keys() {
  static auto* keys = new std::vector<std::string>();
  return *keys;
}

std::string Tag(const std::string* key, absl::string_view payload) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(payload.data());
  if (key == nullptr) {
    SHA256(data, payload.size(), digest);
  } else {
    HMAC(EVP_sha256(), key->data(), static_cast<int>(key->size()), data, payload.size(), digest, &length);
  }
  return std::string(reinterpret_cast<const char*>(digest), kTagBytes);
}

}  // namespace

absl::Status ConfigureTokenSeal(absl::string_view keys) {
  std::vector<std::string> parsed;
  for (absl::string_view key : absl::StrSplit(keys, ',', absl::SkipWhitespace())) {
    if (key.size() < kMinKeyBytes) {
      return InvalidField("page_token_keys", "each key must be at least 16 bytes long");
    }
    parsed.emplace_back(key);
  }
  Keys() = std::move(parsed);
  return absl::OkStatus();
}

std::string SealToken(absl::string_view payload) {
  const auto& keys = Keys();
  std::string sealed(payload);
  sealed += Tag(keys.empty() ? nullptr : &keys.front(), payload);
  return sealed;
}

std::optional<std::string> OpenToken(absl::string_view sealed) {
  if (sealed.size() < kTagBytes) return std::nullopt;
  const absl::string_view payload = sealed.substr(0, sealed.size() - kTagBytes);
  const absl::string_view tag = sealed.substr(sealed.size() - kTagBytes);
  const auto matches = [&](const std::string* key) {
    return CRYPTO_memcmp(Tag(key, payload).data(), tag.data(), kTagBytes) == 0;
  };
  const auto& keys = Keys();
  if (keys.empty()) {
    if (!matches(nullptr)) return std::nullopt;
  } else {
    bool any = false;
    for (const std::string& key : keys) any = any || matches(&key);
    if (!any) return std::nullopt;
  }
  return std::string(payload);
}

std::optional<std::string> StrictWebSafeBase64Unescape(absl::string_view text) {
  std::string raw;
  if (!absl::WebSafeBase64Unescape(text, &raw) || absl::WebSafeBase64Escape(raw) != text) return std::nullopt;
  return raw;
}

}  // namespace hotel
