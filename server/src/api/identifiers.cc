#include "api/identifiers.h"

#include <regex>
#include <string>

#include "absl/strings/ascii.h"
#include "common/errors.h"

namespace hotel::api {
namespace {

bool Matches(absl::string_view value, const std::regex& pattern) {
  return std::regex_match(value.begin(), value.end(), pattern);
}

}  // namespace

absl::Status ValidatePropertyId(absl::string_view field, absl::string_view id) {
  static const std::regex kPattern("[A-Z][A-Z0-9]{1,9}");
  if (id.empty()) return InvalidField(std::string(field), "is required");
  if (!Matches(id, kPattern)) {
    return InvalidField(std::string(field), "must be an upper-case property code such as BER1");
  }
  return absl::OkStatus();
}

absl::Status ValidateRoomNumber(absl::string_view field, absl::string_view number) {
  static const std::regex kPattern("[0-9A-Za-z-]{1,10}");
  if (number.empty()) return InvalidField(std::string(field), "is required");
  if (!Matches(number, kPattern)) {
    return InvalidField(std::string(field), "must be 1 to 10 letters, digits or dashes, such as 101 or 12A");
  }
  return absl::OkStatus();
}

absl::Status ValidateRoomTypeId(absl::string_view field, absl::string_view id) {
  static const std::regex kPattern("[A-Z][A-Z0-9]{1,9}-[A-Z0-9]{1,10}");
  if (id.empty()) return InvalidField(std::string(field), "is required");
  if (!Matches(id, kPattern)) {
    return InvalidField(std::string(field), "must look like BER1-DBL (property code, dash, room type code)");
  }
  return absl::OkStatus();
}

absl::Status ValidateRoomAddress(absl::string_view property_id, absl::string_view number) {
  if (property_id.empty()) {
    return InvalidField("property_id", "is required: room numbers repeat across properties", "PROPERTY_ID_REQUIRED");
  }
  FieldErrors errors;
  for (const auto& s : {ValidatePropertyId("property_id", property_id), ValidateRoomNumber("number", number)}) {
    for (auto& v : FieldViolations(s)) errors.Add(v.field, v.description);
  }
  return errors.ToStatus();
}

bool IsUuid(absl::string_view text) {
  static const std::regex kPattern("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  return Matches(text, kPattern);
}

absl::Status ValidateUuid(absl::string_view field, absl::string_view id) {
  if (id.empty()) return InvalidField(std::string(field), "is required");
  if (!IsUuid(id))
    return InvalidField(std::string(field), "must be a UUID such as 123e4567-e89b-12d3-a456-426614174000");
  return absl::OkStatus();
}

absl::StatusOr<std::string> ParseUuid(absl::string_view field, absl::string_view id) {
  if (auto s = ValidateUuid(field, id); !s.ok()) return s;
  return absl::AsciiStrToLower(id);
}

}  // namespace hotel::api
