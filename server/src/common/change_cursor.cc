#include "common/change_cursor.h"

#include "absl/strings/escaping.h"
#include "common/errors.h"

namespace hotel {
namespace {

constexpr char kCursorVersion = 1;
constexpr char kTokenVersion = 2;
constexpr size_t kPackedBytes = 9;

// base64url of the version byte and the value as 8 bytes, big-endian: 12 characters.
std::string Pack(char version, uint64_t value) {
  std::string raw(kPackedBytes, '\0');
  raw[0] = version;
  for (size_t i = 0; i < 8; ++i) raw[8 - i] = static_cast<char>((value >> (8 * i)) & 0xFF);
  return absl::WebSafeBase64Escape(raw);
}

bool Unpack(char version, absl::string_view text, uint64_t* value) {
  std::string raw;
  if (text.size() != 12 || !absl::WebSafeBase64Unescape(text, &raw) || raw.size() != kPackedBytes ||
      raw[0] != version) {
    return false;
  }
  *value = 0;
  for (size_t i = 1; i < kPackedBytes; ++i) *value = (*value << 8) | static_cast<unsigned char>(raw[i]);
  return true;
}

}  // namespace

std::string EncodeChangeCursor(int64_t position) { return Pack(kCursorVersion, static_cast<uint64_t>(position)); }

absl::StatusOr<int64_t> DecodeChangeCursor(absl::string_view field, absl::string_view cursor) {
  uint64_t value = 0;
  if (!Unpack(kCursorVersion, cursor, &value) || value > static_cast<uint64_t>(INT64_MAX)) {
    return InvalidField(std::string(field), "is not a change cursor returned by this service", "INVALID_CURSOR");
  }
  return static_cast<int64_t>(value);
}

std::string EncodeConsistencyToken(uint64_t wal_position) { return Pack(kTokenVersion, wal_position); }

absl::StatusOr<uint64_t> DecodeConsistencyToken(absl::string_view field, absl::string_view token) {
  uint64_t value = 0;
  if (!Unpack(kTokenVersion, token, &value)) {
    return InvalidField(std::string(field), "is not a consistency token returned by this service",
                        "INVALID_CONSISTENCY_TOKEN");
  }
  return value;
}

}  // namespace hotel
