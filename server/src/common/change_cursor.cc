#include "common/change_cursor.h"

#include "absl/strings/escaping.h"
#include "common/errors.h"

namespace hotel {
namespace {

constexpr char kCursorVersion = 1;
constexpr size_t kCursorBytes = 9;

}  // namespace

std::string EncodeChangeCursor(int64_t position) {
  std::string raw(kCursorBytes, '\0');
  raw[0] = kCursorVersion;
  const auto value = static_cast<uint64_t>(position);
  for (size_t i = 0; i < 8; ++i) raw[8 - i] = static_cast<char>((value >> (8 * i)) & 0xFF);
  return absl::WebSafeBase64Escape(raw);
}

absl::StatusOr<int64_t> DecodeChangeCursor(absl::string_view field, absl::string_view cursor) {
  std::string raw;
  if (cursor.size() != 12 || !absl::WebSafeBase64Unescape(cursor, &raw) || raw.size() != kCursorBytes ||
      raw[0] != kCursorVersion) {
    return InvalidField(std::string(field), "is not a change cursor returned by this service", "INVALID_CURSOR");
  }
  uint64_t value = 0;
  for (size_t i = 1; i < kCursorBytes; ++i) value = (value << 8) | static_cast<unsigned char>(raw[i]);
  if (value > static_cast<uint64_t>(INT64_MAX)) {
    return InvalidField(std::string(field), "is not a change cursor returned by this service", "INVALID_CURSOR");
  }
  return static_cast<int64_t>(value);
}

}  // namespace hotel
