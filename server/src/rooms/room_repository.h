// Reads room data from PostgreSQL into hotel.v1 messages.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "db/pool.h"
#include "hotel/v1/rooms.pb.h"
#include "rooms/room_cache.h"
#include "rooms/room_request.h"

namespace hotel::rooms {

class RoomRepository {
 public:
  // cdn_base_url prefixes the storage keys of embedded images (empty: URLs are the bare keys).
  // GetRoom reads through cache when given one (not owned; may be null).
  explicit RoomRepository(db::ConnectionPool& pool, std::string cdn_base_url = "", RoomCache* cache = nullptr)
      : pool_(pool), cdn_base_url_(std::move(cdn_base_url)), cache_(cache) {}

  absl::Status ListProperties(const PropertyListQuery& query, hotel::v1::ListPropertiesResponse* out);
  absl::Status GetProperty(absl::string_view id, hotel::v1::Property* out);
  // NOT_FOUND (PROPERTY_NOT_FOUND) when query.property_id names no property.
  absl::Status ListRoomTypes(const RoomTypeListQuery& query, hotel::v1::ListRoomTypesResponse* out);
  absl::Status GetRoomType(absl::string_view id, hotel::v1::RoomType* out);
  absl::Status ListRooms(const RoomListQuery& query, hotel::v1::ListRoomsResponse* out);
  absl::Status GetRoom(absl::string_view property_id, absl::string_view number, hotel::v1::Room* out);
  // GetRoom in two halves: the handler answers a cached room before any other work.
  // The room from the cache alone: false (and no database call) when it is not cached.
  bool GetCachedRoom(absl::string_view property_id, absl::string_view number, hotel::v1::Room* out);
  // The room from the database, then kept in the cache (when there is one).
  absl::Status LoadRoom(absl::string_view property_id, absl::string_view number, hotel::v1::Room* out);

 private:
  absl::Status FetchRoom(absl::string_view property_id, absl::string_view number, hotel::v1::Room* out);

  db::ConnectionPool& pool_;
  const std::string cdn_base_url_;
  RoomCache* const cache_;
};

// The room's own record (no images), in the caller's transaction; NOT_FOUND ROOM_NOT_FOUND.
absl::Status ReadRoomRecord(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                            absl::string_view number, hotel::v1::Room* out);
}  // namespace hotel::rooms
