#include "common/change_cursor.h"

#include <atomic>

#include "absl/strings/escaping.h"
#include "common/errors.h"
#include "common/token_seal.h"

namespace hotel {
namespace {

// Version 1 cursors (releases up to 1.3) carried no seal (common/token_seal.h); version 3 ones do.
// A cursor is a position in the feed, and a minor release keeps accepting the ones it issued: version 1
// is read as the position it names through 1.x, and counted so operators see when none are left.
constexpr char kUnsealedCursorVersion = 1;
constexpr char kCursorVersion = 3;
constexpr char kTokenVersion = 2;
constexpr size_t kPackedBytes = 9;

// The version byte and the value as 8 bytes, big-endian.
std::string Pack(char version, uint64_t value) {
  std::string raw(kPackedBytes, '\0');
  raw[0] = version;
  for (size_t i = 0; i < 8; ++i) raw[8 - i] = static_cast<char>((value >> (8 * i)) & 0xFF);
  return raw;
}

bool Unpack(char version, absl::string_view raw, uint64_t* value) {
  if (raw.size() != kPackedBytes || raw[0] != version) return false;
  *value = 0;
  for (size_t i = 1; i < kPackedBytes; ++i) *value = (*value << 8) | static_cast<unsigned char>(raw[i]);
  return true;
}

// base64url of the packed value: 12 characters.
bool UnpackText(char version, absl::string_view text, uint64_t* value) {
  const std::optional<std::string> raw = text.size() == 12 ? StrictWebSafeBase64Unescape(text) : std::nullopt;
  return raw && Unpack(version, *raw, value);
}

std::atomic<int64_t> unsealed_cursors_read{0};

absl::Status InvalidCursor(absl::string_view field, std::string description) {
  return InvalidField(std::string(field), std::move(description), "INVALID_CURSOR");
}

}  // namespace

std::string EncodeChangeCursor(int64_t position) {
  return absl::WebSafeBase64Escape(SealToken(Pack(kCursorVersion, static_cast<uint64_t>(position))));
}

absl::StatusOr<int64_t> DecodeChangeCursor(absl::string_view field, absl::string_view cursor) {
  uint64_t value = 0;
  if (UnpackText(kUnsealedCursorVersion, cursor, &value) && value <= static_cast<uint64_t>(INT64_MAX)) {
    unsealed_cursors_read.fetch_add(1, std::memory_order_relaxed);
    return static_cast<int64_t>(value);
  }
  const std::optional<std::string> sealed = cursor.size() <= 64 ? StrictWebSafeBase64Unescape(cursor) : std::nullopt;
  const std::optional<std::string> raw = sealed ? OpenToken(*sealed) : std::nullopt;
  if (!raw || !Unpack(kCursorVersion, *raw, &value) || value > static_cast<uint64_t>(INT64_MAX)) {
    return InvalidCursor(field, "is not a change cursor returned by this service");
  }
  return static_cast<int64_t>(value);
}

int64_t UnsealedChangeCursorsRead() { return unsealed_cursors_read.load(std::memory_order_relaxed); }

std::string EncodeConsistencyToken(uint64_t wal_position) {
  return absl::WebSafeBase64Escape(Pack(kTokenVersion, wal_position));
}

absl::StatusOr<uint64_t> DecodeConsistencyToken(absl::string_view field, absl::string_view token) {
  uint64_t value = 0;
  if (!UnpackText(kTokenVersion, token, &value)) {
    return InvalidField(std::string(field), "is not a consistency token returned by this service",
                        "INVALID_CONSISTENCY_TOKEN");
  }
  return value;
}

}  // namespace hotel
