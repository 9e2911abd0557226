#include "api/request_fields.h"

#include <set>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/identifiers.h"
#include "common/dates.h"
#include "common/text_fields.h"

namespace hotel::api {

void Collect(const absl::Status& status, FieldErrors& errors) {
  for (auto& v : FieldViolations(status)) errors.Add(std::move(v.field), std::move(v.description));
}

void CheckBatchKeys(absl::string_view field, const std::vector<std::string>& keys,
                    absl::Status (*validate)(absl::string_view field, absl::string_view key), FieldErrors& errors) {
  if (keys.empty()) {
    errors.Add(std::string(field), absl::StrCat("is required: 1 to ", kMaxBatchSize, " of them"));
    return;
  }
  if (keys.size() > kMaxBatchSize) {
    errors.Add(std::string(field), absl::StrCat("takes at most ", kMaxBatchSize, " per call, got ", keys.size()));
    return;
  }
  std::set<absl::string_view> seen;
  for (const std::string& key : keys) {
    if (auto s = validate(field, key); !s.ok()) {
      Collect(s, errors);
    } else if (!seen.insert(key).second) {
      errors.Add(std::string(field), absl::StrCat(key, " is asked more than once"));
    }
  }
}

std::string Text(absl::string_view field, absl::string_view value, size_t max, bool required, FieldErrors& errors) {
  std::string out(absl::StripAsciiWhitespace(value));
  if (required && out.empty()) {
    errors.Add(std::string(field), "is required");
  } else if (CodePoints(out) > max) {
    errors.Add(std::string(field), absl::StrCat("must be at most ", max, " characters"));
  }
  return out;
}

std::string OptionalDate(absl::string_view field, absl::string_view value, FieldErrors& errors) {
  if (value.empty()) return "";
  if (!ParseDate(value)) {
    errors.Add(std::string(field), "must be a date in the form YYYY-MM-DD");
    return "";
  }
  return std::string(value);
}

std::string RequiredDate(const std::string& field, absl::string_view value, FieldErrors& errors) {
  if (value.empty()) {
    errors.Add(field, "is required: a date in the form YYYY-MM-DD");
    return "";
  }
  return OptionalDate(field, value, errors);
}

std::optional<DateRange> ReadDateRange(absl::string_view from_field, absl::string_view from, absl::string_view to_field,
                                       absl::string_view to, bool required, FieldErrors& errors) {
  if (!required && from.empty() && to.empty()) return std::nullopt;
  const std::string from_name(from_field), to_name(to_field);
  DateRange range{RequiredDate(from_name, from, errors), RequiredDate(to_name, to, errors)};
  const auto from_day = ParseDate(range.from);
  const auto to_day = ParseDate(range.to);
  if (!from_day || !to_day) return std::nullopt;
  if (*to_day <= *from_day) {
    errors.Add(to_name, absl::StrCat("must be after ", from_field, " (", to_field, " is exclusive)"));
    return std::nullopt;
  }
  if (*to_day - *from_day > kMaxRangeDays) {
    errors.Add(to_name, absl::StrCat("must be at most ", kMaxRangeDays, " days after ", from_field));
    return std::nullopt;
  }
  return range;
}

std::string OptionalUuid(absl::string_view field, absl::string_view value, FieldErrors& errors) {
  if (value.empty()) return "";
  Collect(ValidateUuid(field, value), errors);
  return absl::AsciiStrToLower(value);
}

void CheckRoom(absl::string_view property_field, absl::string_view property_id, absl::string_view number_field,
               absl::string_view number, FieldErrors& errors) {
  if (!property_id.empty()) Collect(ValidatePropertyId(property_field, property_id), errors);
  Collect(ValidateRoomNumber(number_field, number), errors);
}

absl::Status PropertyIdRequired(absl::string_view why) {
  return InvalidField("property_id", absl::StrCat("is required: ", why), "PROPERTY_ID_REQUIRED");
}

std::string EnumNames(const google::protobuf::EnumDescriptor* descriptor) {
  std::vector<std::string> names;
  for (int i = 0; i < descriptor->value_count(); ++i) {
    if (descriptor->value(i)->number() != 0) names.push_back(descriptor->value(i)->name());
  }
  return absl::StrJoin(names, ", ");
}

}  // namespace hotel::api
