// The statements that read properties, room types and rooms, and the row readers beside them.
#pragma once

#include <pqxx/pqxx>

#include "absl/strings/string_view.h"
#include "db/sql.h"
#include "hotel/v1/rooms.pb.h"
#include "rooms/room_request.h"

namespace hotel::rooms {

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

}  // namespace hotel::rooms
