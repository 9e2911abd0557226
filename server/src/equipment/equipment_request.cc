#include "equipment/equipment_request.h"

#include <regex>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "api/idempotency.h"
#include "api/identifiers.h"
#include "api/paging.h"
#include "api/request_fields.h"
#include "common/dates.h"
#include "common/page_token.h"

namespace hotel::equipment {
namespace {

using hotel::v1::Equipment;

bool Matches(absl::string_view value, const std::regex& pattern) {
  return std::regex_match(value.begin(), value.end(), pattern);
}

}  // namespace

absl::StatusOr<NewEquipment> ValidateCreateEquipment(const hotel::v1::CreateEquipmentRequest& request) {
  if (request.property_id().empty()) {
    return api::PropertyIdRequired("room numbers repeat across properties");
  }
  static const std::regex kType("[a-z][a-z0-9_]{1,39}");
  FieldErrors errors;
  NewEquipment out;
  api::CheckRoom("property_id", request.property_id(), "number", request.number(), errors);
  out.property_id = request.property_id();
  out.room_number = request.number();
  out.name = api::Text("name", request.name(), api::kMaxTitleLength, true, errors);
  out.type = std::string(absl::StripAsciiWhitespace(request.type()));
  if (out.type.empty()) {
    errors.Add("type", "is required");
  } else if (!Matches(out.type, kType)) {
    errors.Add("type", "must be a lower_snake_case code of 2 to 40 characters, e.g. air_conditioner");
  }
  out.manufacturer = api::Text("manufacturer", request.manufacturer(), api::kMaxNameLength, false, errors);
  out.model = api::Text("model", request.model(), api::kMaxNameLength, false, errors);
  out.serial_number = api::Text("serial_number", request.serial_number(), api::kMaxNameLength, false, errors);
  out.installed_on = api::OptionalDate("installed_on", request.installed_on(), errors);
  out.warranty_expires_on = api::OptionalDate("warranty_expires_on", request.warranty_expires_on(), errors);
  if (!out.installed_on.empty() && !out.warranty_expires_on.empty() &&
      *ParseDate(out.warranty_expires_on) < *ParseDate(out.installed_on)) {
    errors.Add("warranty_expires_on", "must not be before installed_on");
  }
  out.status = api::EnumField<Equipment::Status>("status", request.status(), errors).value_or("OPERATIONAL");
  out.notes = api::Text("notes", request.notes(), api::kMaxTextLength, false, errors);
  return api::WithRequestId(request, std::move(out), errors);
}

absl::StatusOr<EquipmentListQuery> ParseListEquipment(const hotel::v1::ListEquipmentRequest& request) {
  if (request.property_id().empty()) return api::PropertyIdRequired("room numbers repeat across properties");
  FieldErrors errors;
  EquipmentListQuery query;
  api::CheckRoom("property_id", request.property_id(), "number", request.number(), errors);
  query.property_id = request.property_id();
  query.room_number = request.number();
  query.status = api::EnumField<Equipment::Status>("status", request.status(), errors);
  if (auto s = api::ApplyPaging(request, "equipment", {2, 0, 1}, Fingerprint(query), query, errors); !s.ok()) return s;
  return query;
}

std::string Fingerprint(const EquipmentListQuery& q) {
  return FilterFingerprint(
      absl::StrCat("property=", q.property_id, "|room=", q.room_number, "|status=", api::OptionalText(q.status)));
}

}  // namespace hotel::equipment
