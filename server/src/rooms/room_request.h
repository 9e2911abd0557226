// Room-data requests (properties, room types, rooms) validated into queries. Pure, unit-tested.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "api/request_fields.h"
#include "common/errors.h"
#include "hotel/v1/rooms.pb.h"

namespace hotel::rooms {

// Limits of the room-data fields, for filters and writes alike.
inline constexpr int kMaxFloor = 200;
inline constexpr int kMaxAmenities = 20;
inline constexpr int kMaxGuests = 20;
inline constexpr double kMaxSizeSqm = 10000;

// The controlled vocabulary of amenity codes.
const std::vector<absl::string_view>& AmenityVocabulary();

// The vocabulary with English labels, by code (GET /amenities).
struct AmenityEntry {
  absl::string_view code;
  absl::string_view label;
};
const std::vector<AmenityEntry>& Amenities();

// Validates, sorts and de-duplicates amenity codes; each unknown one is a violation naming field.
std::vector<std::string> NormalizeAmenities(const google::protobuf::RepeatedPtrField<std::string>& in,
                                            const std::string& field, FieldErrors& errors);

// "STANDARD" etc.; nullopt for CATEGORY_UNSPECIFIED; INVALID_ARGUMENT for values outside the enum.
absl::StatusOr<std::optional<std::string>> CategoryFilter(int category);
hotel::v1::RoomType::Category ParseCategory(absl::string_view name);

struct PropertyListQuery {
  std::optional<bool> enabled;
  int page_size = 0;
  std::vector<std::string> after;  // keyset: id
};

struct RoomTypeListQuery {
  std::string property_id;
  std::optional<std::string> category;
  std::vector<std::string> amenities;  // sorted, unique
  std::optional<double> min_size_sqm;
  std::optional<double> max_size_sqm;
  std::optional<int> guests;
  bool show_retired = false;
  int page_size = 0;
  std::vector<std::string> after;  // keyset: id
};

struct RoomListQuery {
  std::string property_id;
  std::optional<int> floor;
  std::optional<std::string> category;
  std::vector<std::string> amenities;  // sorted, unique
  std::optional<bool> available;
  std::string room_type_id;
  bool show_retired = false;
  // Only rooms with no active OUT_OF_ORDER block on a date of [from, to) (1.3.0).
  std::optional<api::DateRange> available_dates;
  // Housekeeping filters (1.4.0): DIRTY | CLEAN | INSPECTED; VACANT | OCCUPIED | UNKNOWN.
  std::optional<std::string> condition;
  std::optional<std::string> occupancy;
  // 1.5.0: SKIP | SLEEP | ANY; whether RoomHousekeeping.ready.
  std::optional<std::string> discrepancy;
  std::optional<bool> ready;
  int page_size = 0;
  std::vector<std::string> after;  // keyset: property_id, floor, number
};

absl::StatusOr<PropertyListQuery> ParseListProperties(const hotel::v1::ListPropertiesRequest& request);
absl::StatusOr<RoomTypeListQuery> ParseListRoomTypes(const hotel::v1::ListRoomTypesRequest& request);
absl::StatusOr<RoomListQuery> ParseListRooms(const hotel::v1::ListRoomsRequest& request);

// BatchGetRooms: the property (required) and the numbers in the order asked (api::CheckBatchKeys).
struct RoomBatchQuery {
  std::string property_id;
  std::vector<std::string> numbers;
};
absl::StatusOr<RoomBatchQuery> ParseBatchGetRooms(const hotel::v1::BatchGetRoomsRequest& request);

// The fingerprint page tokens carry for each list.
std::string Fingerprint(const PropertyListQuery& query);
std::string Fingerprint(const RoomTypeListQuery& query);
std::string Fingerprint(const RoomListQuery& query);

}  // namespace hotel::rooms
