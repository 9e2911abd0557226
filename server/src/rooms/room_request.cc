#include "rooms/room_request.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/identifiers.h"
#include "api/paging.h"
#include "api/request_fields.h"
#include "common/errors.h"
#include "common/page_token.h"

namespace hotel::rooms {
namespace {

using hotel::v1::RoomType;

void CheckSize(absl::string_view field, const std::optional<double>& value, FieldErrors& errors) {
  if (value && (!std::isfinite(*value) || *value < 0 || *value > kMaxSizeSqm)) {
    errors.Add(std::string(field), absl::StrCat("must be a number from 0 to ", kMaxSizeSqm));
  }
}

}  // namespace

const std::vector<AmenityEntry>& Amenities() {
  static const std::vector<AmenityEntry> kAmenities = {
      {"accessible_bathroom", "Accessible bathroom"},
      {"air_conditioning", "Air conditioning"},
      {"balcony", "Balcony"},
      {"bathtub", "Bathtub"},
      {"city_view", "City view"},
      {"coffee_machine", "Coffee machine"},
      {"desk", "Desk"},
      {"kitchenette", "Kitchenette"},
      {"minibar", "Minibar"},
      {"safe", "Safe"},
      {"sea_view", "Sea view"},
      {"smart_tv", "Smart TV"},
      {"sofa_bed", "Sofa bed"},
      {"terrace", "Terrace"},
      {"walk_in_shower", "Walk-in shower"},
      {"wifi", "Wi-Fi"},
  };
  return kAmenities;
}

const std::vector<absl::string_view>& AmenityVocabulary() {
  static const std::vector<absl::string_view> kVocabulary = [] {
    std::vector<absl::string_view> codes;
    for (const auto& entry : Amenities()) codes.push_back(entry.code);
    return codes;
  }();
  return kVocabulary;
}

std::vector<std::string> NormalizeAmenities(const google::protobuf::RepeatedPtrField<std::string>& in,
                                            const std::string& field, FieldErrors& errors) {
  std::vector<std::string> out(in.begin(), in.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.size() > kMaxAmenities) {
    errors.Add(field, absl::StrCat("at most ", kMaxAmenities, " amenities"));
  }
  const auto& vocabulary = AmenityVocabulary();
  for (const auto& code : out) {
    if (std::find(vocabulary.begin(), vocabulary.end(), code) == vocabulary.end()) {
      errors.Add(field, absl::StrCat("unknown amenity '", ValidUtf8(code.substr(0, 40)),
                                     "'; known: ", absl::StrJoin(vocabulary, ", ")));
    }
  }
  return out;
}

absl::StatusOr<std::optional<std::string>> CategoryFilter(int category) {
  if (category == RoomType::CATEGORY_UNSPECIFIED) return std::optional<std::string>();
  if (!RoomType::Category_IsValid(category)) {
    return InvalidField("category", "must be one of STANDARD, SUPERIOR, DELUXE, SUITE, FAMILY, ACCESSIBLE");
  }
  return std::optional<std::string>(RoomType::Category_Name(static_cast<RoomType::Category>(category)));
}

RoomType::Category ParseCategory(absl::string_view name) {
  RoomType::Category category = RoomType::CATEGORY_UNSPECIFIED;
  RoomType::Category_Parse(std::string(name), &category);
  return category;
}

absl::StatusOr<PropertyListQuery> ParseListProperties(const hotel::v1::ListPropertiesRequest& request) {
  PropertyListQuery query;
  if (request.has_enabled()) query.enabled = request.enabled();
  FieldErrors errors;
  if (auto s =
          api::ApplyPaging(request, "properties", {1}, Fingerprint(query), query, errors, api::PageSizeError::kAlone);
      !s.ok())
    return s;
  return query;
}

absl::StatusOr<RoomTypeListQuery> ParseListRoomTypes(const hotel::v1::ListRoomTypesRequest& request) {
  RoomTypeListQuery query;
  FieldErrors errors;
  if (!request.property_id().empty()) {
    if (auto s = api::ValidatePropertyId("property_id", request.property_id()); !s.ok()) return s;
    query.property_id = request.property_id();
  }
  auto category = CategoryFilter(request.category());
  if (!category.ok()) return category.status();
  query.category = *category;
  query.amenities = NormalizeAmenities(request.amenities(), "amenities", errors);
  if (request.has_min_size_sqm()) query.min_size_sqm = request.min_size_sqm();
  if (request.has_max_size_sqm()) query.max_size_sqm = request.max_size_sqm();
  CheckSize("min_size_sqm", query.min_size_sqm, errors);
  CheckSize("max_size_sqm", query.max_size_sqm, errors);
  if (errors.empty() && query.min_size_sqm && query.max_size_sqm && *query.min_size_sqm > *query.max_size_sqm) {
    errors.Add("min_size_sqm", "must not be greater than max_size_sqm");
  }
  query.show_retired = request.show_retired();
  if (request.has_guests()) {
    if (request.guests() < 1 || request.guests() > kMaxGuests) {
      errors.Add("guests", absl::StrCat("must be from 1 to ", kMaxGuests));
    }
    query.guests = request.guests();
  }
  if (auto s =
          api::ApplyPaging(request, "room_types", {1}, Fingerprint(query), query, errors, api::PageSizeError::kAlone);
      !s.ok())
    return s;
  return query;
}

absl::StatusOr<RoomBatchQuery> ParseBatchGetRooms(const hotel::v1::BatchGetRoomsRequest& request) {
  if (request.property_id().empty()) return api::PropertyIdRequired("room numbers repeat across properties");
  if (auto s = api::ValidatePropertyId("property_id", request.property_id()); !s.ok()) return s;
  RoomBatchQuery query{request.property_id(), {request.numbers().begin(), request.numbers().end()}};
  FieldErrors errors;
  api::CheckBatchKeys("numbers", query.numbers, api::ValidateRoomNumber, errors);
  if (!errors.empty()) return errors.ToStatus();
  return query;
}

absl::StatusOr<RoomListQuery> ParseListRooms(const hotel::v1::ListRoomsRequest& request) {
  RoomListQuery query;
  FieldErrors errors;
  if (!request.property_id().empty()) {
    if (auto s = api::ValidatePropertyId("property_id", request.property_id()); !s.ok()) return s;
    query.property_id = request.property_id();
  }
  if (request.has_floor()) {
    if (request.floor() < 0 || request.floor() > kMaxFloor) {
      errors.Add("floor", absl::StrCat("must be from 0 to ", kMaxFloor));
    }
    query.floor = request.floor();
  }
  auto category = CategoryFilter(request.category());
  if (!category.ok()) return category.status();
  query.category = *category;
  query.amenities = NormalizeAmenities(request.amenities(), "amenities", errors);
  if (request.has_available()) query.available = request.available();
  query.condition = api::EnumField<hotel::v1::RoomHousekeeping::Condition>("condition", request.condition(), errors);
  query.occupancy = api::EnumField<hotel::v1::RoomHousekeeping::Occupancy>("occupancy", request.occupancy(), errors);
  query.discrepancy =
      api::EnumField<hotel::v1::ListRoomsRequest::DiscrepancyFilter>("discrepancy", request.discrepancy(), errors);
  if (request.has_ready()) query.ready = request.ready();
  query.show_retired = request.show_retired();
  query.available_dates = api::ReadDateRange("available_from", request.available_from(), "available_to",
                                             request.available_to(), false, errors);
  if (!request.room_type_id().empty()) {
    if (auto s = api::ValidateRoomTypeId("room_type_id", request.room_type_id()); !s.ok()) return s;
    query.room_type_id = request.room_type_id();
  }
  if (auto s = api::ApplyPaging(request, "rooms", {3}, Fingerprint(query), query, errors, api::PageSizeError::kAlone);
      !s.ok())
    return s;
  // The floor part of the key must be a number, or the statement would fail in PostgreSQL.
  int floor = 0;
  if (!query.after.empty() && !absl::SimpleAtoi(query.after[1], &floor)) {
    return InvalidPageToken();
  }
  return query;
}

namespace {
std::string OptionalText(const std::optional<std::string>& v) { return v.value_or("-"); }
template <typename T>
std::string OptionalNumber(const std::optional<T>& v) {
  return v ? absl::StrCat(*v) : "-";
}
// Only when set: the fingerprints (and page tokens) of 1.0.0's lists stay the same.
std::string RetiredFingerprint(bool show_retired) { return show_retired ? "|retired" : ""; }
std::string AvailableDatesFingerprint(const std::optional<api::DateRange>& dates) {
  return dates ? absl::StrCat("|available_dates=", dates->from, "/", dates->to) : "";
}
std::string HousekeepingFingerprint(const std::optional<std::string>& condition,
                                    const std::optional<std::string>& occupancy) {
  return condition || occupancy
             ? absl::StrCat("|condition=", OptionalText(condition), "|occupancy=", OptionalText(occupancy))
             : "";
}
std::string ReadinessFingerprint(const std::optional<std::string>& discrepancy, const std::optional<bool>& ready) {
  return discrepancy || ready
             ? absl::StrCat("|discrepancy=", OptionalText(discrepancy), "|ready=", OptionalNumber(ready))
             : "";
}
}  // namespace

std::string Fingerprint(const PropertyListQuery& q) {
  return FilterFingerprint(absl::StrCat("enabled=", OptionalNumber(q.enabled)));
}

std::string Fingerprint(const RoomTypeListQuery& q) {
  return FilterFingerprint(absl::StrCat("property=", q.property_id, "|category=", OptionalText(q.category),
                                        "|amenities=", absl::StrJoin(q.amenities, ","), "|min=",
                                        OptionalNumber(q.min_size_sqm), "|max=", OptionalNumber(q.max_size_sqm),
                                        "|guests=", OptionalNumber(q.guests), RetiredFingerprint(q.show_retired)));
}

std::string Fingerprint(const RoomListQuery& q) {
  return FilterFingerprint(absl::StrCat(
      "property=", q.property_id, "|floor=", OptionalNumber(q.floor), "|category=", OptionalText(q.category),
      "|amenities=", absl::StrJoin(q.amenities, ","), "|available=", OptionalNumber(q.available),
      "|type=", q.room_type_id, RetiredFingerprint(q.show_retired), AvailableDatesFingerprint(q.available_dates),
      HousekeepingFingerprint(q.condition, q.occupancy), ReadinessFingerprint(q.discrepancy, q.ready)));
}

}  // namespace hotel::rooms
