// The statements that read properties, room types and rooms, and the row readers beside them.
#pragma once

#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "db/sql.h"
#include "hotel/v1/rooms.pb.h"
#include "rooms/room_request.h"

namespace hotel::rooms {

// The columns of rooms/sql/_room_select.sql, in order: readers and page keys use these names, never
// numbers (sql_columns_test checks the order against the file).
namespace room_columns {
enum : int {
  kPropertyId,
  kNumber,
  kFloor,
  kRoomTypeId,
  kCategory,
  kAmenities,
  kOutOfOrder,
  kOutOfOrderReason,
  kOutOfOrderSinceMicros,
  kEquipmentCount,
  kVersion,
  kRoomTypeVersion,
  kRetiredAtMicros,
  kUpdatedBy,
  kUpdatedAtMicros,
  kExtraAmenities,
  kImageCount,
  kHousekeepingCondition,
  kHousekeepingOccupancy,
  kHousekeepingOccupancySource,
  kHousekeepingObservedMicros,
  kHousekeepingReason,
  kHousekeepingUpdatedBy,
  kHousekeepingUpdatedMicros,
  kHousekeepingObservedOccupancy,
  kHousekeepingObservedBy,
  kHousekeepingObservedOccupancyMicros,
  kHousekeepingServiceRequest,
  kHousekeepingCleaningPriority,
  kHousekeepingOutOfOrder,
  kHousekeepingOutOfServiceToday,
  kHousekeepingInspectionRequired,
  kHousekeepingVersion,
  kCount
};
}  // namespace room_columns

// The columns of rooms/sql/_room_type_select.sql, in order: readers and page keys use these names, never
// numbers (sql_columns_test checks the order against the file).
namespace room_type_columns {
enum : int {
  kId,
  kPropertyId,
  kCode,
  kName,
  kDescription,
  kCategory,
  kAmenities,
  kSizeSqm,
  kMaxGuests,
  kBedType,
  kVersion,
  kRetiredAtMicros,
  kUpdatedBy,
  kUpdatedAtMicros,
  kImageCount,
  kCount
};
}  // namespace room_type_columns

// The columns of rooms/sql/_property_select.sql, in order: readers and page keys use these names, never
// numbers (sql_columns_test checks the order against the file).
namespace property_columns {
enum : int {
  kId,
  kName,
  kEnabled,
  kTimeZone,
  kCity,
  kCountryCode,
  kRoomCount,
  kRoomTypeCount,
  kVersion,
  kUpdatedBy,
  kUpdatedAtMicros,
  kCount
};
}  // namespace property_columns

// Each statement fetches page_size + 1 rows: the extra row only tells that a next page exists.
db::SqlQuery BuildListPropertiesSql(const PropertyListQuery& query);

db::SqlQuery BuildListRoomTypesSql(const RoomTypeListQuery& query);

db::SqlQuery BuildListRoomsSql(const RoomListQuery& query);

// The etags of room data: each covers everything its representation shows, so a GET's HTTP ETag
// is the etag field itself (an If-None-Match never gets 304 for a changed response, and an
// If-Match can send the header back). From the row versions (migration 0010) plus what the
// response derives from other rows: a property's counts, a room type's gallery, and for a room its
// room type's row (category, amenities), its equipment count and the galleries it shows; 1.5.0:
// what its readiness reads beside its row (readiness_inputs: RoomReadinessInputs, 0 for a room
// whose etag is then what 1.4 gave it).
std::string PropertyEtag(absl::string_view id, int64_t version, int64_t room_count = 0, int64_t room_type_count = 0);
std::string RoomTypeEtag(absl::string_view id, int64_t version, int64_t image_count = 0);
std::string RoomEtag(absl::string_view property_id, absl::string_view number, int64_t room_version,
                     int64_t room_type_version, int64_t equipment_count = 0, int64_t image_count = 0);

// The etag of a room's housekeeping (1.5.0, RoomHousekeeping.etag): from the version of its
// housekeeping columns (migration 0027), so housekeeping writes and room data writes each check
// their own, and from what its readiness reads besides the row (readiness_inputs, room_sql.cc), so
// a revalidated GET sees readiness change. A room's GET sends both as its HTTP ETag
// (api::RepresentationEtag).
std::string HousekeepingEtag(absl::string_view property_id, absl::string_view number, int64_t housekeeping_version,
                             int64_t readiness_inputs = 0);

void ReadProperty(const pqxx::row& row, hotel::v1::Property* out);

void ReadRoomType(const pqxx::row& row, hotel::v1::RoomType* out);

void ReadRoom(const pqxx::row& row, hotel::v1::Room* out);

// The page-token keys of listed rows: a property's id; a room type's id; a room's property_id,
// floor and number.
std::vector<std::string> PropertyPageKey(const pqxx::row& row);
std::vector<std::string> RoomTypePageKey(const pqxx::row& row);
std::vector<std::string> RoomPageKey(const pqxx::row& row);

}  // namespace hotel::rooms
