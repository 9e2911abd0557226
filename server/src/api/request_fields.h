// Helpers that read one field of a request into a command or query, adding a violation that
// names the field to a FieldErrors when it is bad. Used by every area's *_request.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "api/identifiers.h"
#include "common/errors.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/generated_enum_reflection.h"

namespace hotel::api {

inline constexpr int kMaxTitleLength = 200;
inline constexpr int kMaxTextLength = 5000;
inline constexpr int kMaxNameLength = 100;

// Moves a field validator's violations (if any) into errors.
void Collect(const absl::Status& status, FieldErrors& errors);

// Trimmed text; a violation when required and empty, or longer than max characters (code points).
std::string Text(absl::string_view field, absl::string_view value, size_t max, bool required, FieldErrors& errors);

// "" or a YYYY-MM-DD date.
std::string OptionalDate(absl::string_view field, absl::string_view value, FieldErrors& errors);

// A required YYYY-MM-DD date: "" and a violation naming field when missing or malformed.
std::string RequiredDate(const std::string& field, absl::string_view value, FieldErrors& errors);

// The longest range of dates a request may name (availability by date, the room filter): a year.
inline constexpr int kMaxRangeDays = 366;
// A range of dates [from, to) given as two request fields.
struct DateRange {
  std::string from;
  std::string to;
};
// Both dates valid, to after from and at most kMaxRangeDays after it; violations name the fields.
// nullopt when a violation was added, or when neither is set and the range is not required.
std::optional<DateRange> ReadDateRange(absl::string_view from_field, absl::string_view from, absl::string_view to_field,
                                       absl::string_view to, bool required, FieldErrors& errors);

// An optional UUID reference (equipment_id): "" when empty, else its lower-case form (a
// violation naming field when it is not a UUID).
std::string OptionalUuid(absl::string_view field, absl::string_view value, FieldErrors& errors);

// A room reference: property_id (when given) and number.
void CheckRoom(absl::string_view property_field, absl::string_view property_id, absl::string_view number_field,
               absl::string_view number, FieldErrors& errors);

// INVALID_ARGUMENT PROPERTY_ID_REQUIRED: "property_id is required: <why>".
absl::Status PropertyIdRequired(absl::string_view why);

// The room a create names (property_id required: PROPERTY_ID_REQUIRED with why; room_number) and
// its optional equipment_id, read from request into out's fields of the same names.
template <typename Request, typename Command>
absl::Status ReadRoomTarget(const Request& request, absl::string_view why, Command& out, FieldErrors& errors) {
  if (request.property_id().empty()) return PropertyIdRequired(why);
  CheckRoom("property_id", request.property_id(), "room_number", request.room_number(), errors);
  out.property_id = request.property_id();
  out.room_number = request.room_number();
  out.equipment_id = OptionalUuid("equipment_id", request.equipment_id(), errors);
  return absl::OkStatus();
}

// The optional scope of a list: property_id, and room_number within it (PROPERTY_ID_REQUIRED
// when a room is named without its property), read from request into query's fields.
template <typename Request, typename Query>
absl::Status ReadListScope(const Request& request, Query& query, FieldErrors& errors) {
  if (!request.property_id().empty()) Collect(ValidatePropertyId("property_id", request.property_id()), errors);
  query.property_id = request.property_id();
  if (request.room_number().empty()) return absl::OkStatus();
  if (request.property_id().empty()) return PropertyIdRequired("room_number is only unique within a property");
  Collect(ValidateRoomNumber("room_number", request.room_number()), errors);
  query.room_number = request.room_number();
  return absl::OkStatus();
}

// The most keys a batch get takes (AIP-231).
inline constexpr int kMaxBatchSize = 100;

// The keys of a batch get, already normalised by the caller (e.g. lower-case UUIDs): violations
// naming field when there are none or more than kMaxBatchSize, for each key validate refuses
// (it gets field too), and for a key asked twice (the answer lists one resource per key, in
// order, so a repeat is a client's mistake rather than something to answer twice).
void CheckBatchKeys(absl::string_view field, const std::vector<std::string>& keys,
                    absl::Status (*validate)(absl::string_view field, absl::string_view key), FieldErrors& errors);

// The names of an enum's values except the zero value, e.g. "LOW, MEDIUM, HIGH, URGENT".
std::string EnumNames(const google::protobuf::EnumDescriptor* descriptor);

// An enum field: nullopt when unset (zero); its value's name when it is one of Enum's values;
// otherwise nullopt and a violation "must be one of ..." naming field.
template <typename Enum>
std::optional<std::string> EnumField(absl::string_view field, int value, FieldErrors& errors) {
  if (value == 0) return std::nullopt;
  const google::protobuf::EnumDescriptor* descriptor = google::protobuf::GetEnumDescriptor<Enum>();
  const google::protobuf::EnumValueDescriptor* named = descriptor->FindValueByNumber(value);
  if (named == nullptr) {
    errors.Add(std::string(field), "must be one of " + EnumNames(descriptor));
    return std::nullopt;
  }
  return named->name();
}

// A required enum field: its value's name; "" and a violation "is required: one of ..." when
// unset, or "must be one of ..." when not one of Enum's values.
template <typename Enum>
std::string RequiredEnumField(absl::string_view field, int value, FieldErrors& errors) {
  if (value == 0) {
    errors.Add(std::string(field), "is required: one of " + EnumNames(google::protobuf::GetEnumDescriptor<Enum>()));
    return "";
  }
  return EnumField<Enum>(field, value, errors).value_or("");
}

}  // namespace hotel::api
