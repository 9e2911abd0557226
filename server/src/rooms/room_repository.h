// Reads room data from PostgreSQL into hotel.v1 messages.
#pragma once

#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "db/pool.h"
#include "hotel/v1/rooms.pb.h"
#include "rooms/room_filters.h"

namespace hotel::rooms {

class RoomRepository {
 public:
  explicit RoomRepository(db::ConnectionPool& pool) : pool_(pool) {}

  absl::Status ListProperties(const PropertyListQuery& query, hotel::v1::ListPropertiesResponse* out);
  absl::Status GetProperty(absl::string_view id, hotel::v1::Property* out);
  // NOT_FOUND (PROPERTY_NOT_FOUND) when query.property_id names no property.
  absl::Status ListRoomTypes(const RoomTypeListQuery& query, hotel::v1::ListRoomTypesResponse* out);
  absl::Status GetRoomType(absl::string_view id, hotel::v1::RoomType* out);
  absl::Status ListRooms(const RoomListQuery& query, hotel::v1::ListRoomsResponse* out);
  absl::Status GetRoom(absl::string_view property_id, absl::string_view number, hotel::v1::Room* out);

 private:
  db::ConnectionPool& pool_;
};

// Row mappers, shared with other areas that embed rooms.
void ReadRoom(const pqxx::row& row, hotel::v1::Room* out);
// NOT_FOUND with reason PROPERTY_NOT_FOUND unless the property exists.
absl::Status CheckPropertyExists(db::Session& session, pqxx::transaction_base& txn, absl::string_view id);

}  // namespace hotel::rooms
