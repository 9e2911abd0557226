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

// The columns of the room statements, in order: readers and page keys use
// these names, never numbers.
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
  kCount
};
}  // namespace room_columns

// The columns of the room type statements, in order: readers and page keys use
// these names, never numbers.
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
  kCount
};
}  // namespace room_type_columns

// The columns of the property statements, in order: readers and page keys use
// these names, never numbers.
namespace property_columns {
enum : int { kId, kName, kEnabled, kTimeZone, kCity, kCountryCode, kRoomCount, kRoomTypeCount, kCount };
}  // namespace property_columns

// Each statement fetches page_size + 1 rows: the extra row only tells that a next page exists.
db::SqlQuery BuildListPropertiesSql(const PropertyListQuery& query);

db::SqlQuery BuildListRoomTypesSql(const RoomTypeListQuery& query);

db::SqlQuery BuildListRoomsSql(const RoomListQuery& query);

db::SqlQuery BuildGetPropertySql(absl::string_view id);

db::SqlQuery BuildGetRoomTypeSql(absl::string_view id);

db::SqlQuery BuildGetRoomSql(absl::string_view property_id, absl::string_view number);

void ReadProperty(const pqxx::row& row, hotel::v1::Property* out);

void ReadRoomType(const pqxx::row& row, hotel::v1::RoomType* out);

void ReadRoom(const pqxx::row& row, hotel::v1::Room* out);

// The page-token keys of listed rows: a property's id; a room type's id; a room's property_id,
// floor and number.
std::vector<std::string> PropertyPageKey(const pqxx::row& row);
std::vector<std::string> RoomTypePageKey(const pqxx::row& row);
std::vector<std::string> RoomPageKey(const pqxx::row& row);

}  // namespace hotel::rooms
