// Reads room data from PostgreSQL into hotel.v1 messages.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "db/pool.h"
#include "hotel/v1/rooms.pb.h"
#include "rooms/room_cache.h"
#include "rooms/room_request.h"
#include "rooms/room_write_request.h"

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
  // The rooms of query.numbers in their order, as lists show them (no images), in one statement;
  // NOT_FOUND PROPERTY_NOT_FOUND, or ROOM_NOT_FOUND naming every number that does not exist.
  absl::Status BatchGetRooms(const RoomBatchQuery& query, hotel::v1::BatchGetRoomsResponse* out);
  // GetRoom in two halves: the handler answers a cached room before any other work.
  // The room from the cache alone: false (and no database call) when it is not cached.
  bool GetCachedRoom(absl::string_view property_id, absl::string_view number, hotel::v1::Room* out);
  // The room from the database, then kept in the cache (when there is one).
  absl::Status LoadRoom(absl::string_view property_id, absl::string_view number, hotel::v1::Room* out);

  // Writes (room_write_repository.cc). Creates: ALREADY_EXISTS for a taken id, NOT_FOUND for a
  // missing property or room type, REQUEST_ID_REUSED; a retry with the same request_id returns
  // the record the first one created. Updates: NOT_FOUND, the plan's errors (room_write_request.h),
  // FAILED_PRECONDITION ROOM_HELD_BY_ISSUE / ROOM_TYPE_IN_USE / ROOM_TYPE_RETIRED. Every write
  // invalidates the room cache once committed (the pool's after-write hook).
  absl::Status CreateProperty(const NewRecord<hotel::v1::Property>& in, hotel::v1::Property* out);
  absl::Status CreateRoomType(const NewRecord<hotel::v1::RoomType>& in, hotel::v1::RoomType* out);
  absl::Status CreateRoom(const NewRecord<hotel::v1::Room>& in, hotel::v1::Room* out);
  absl::Status UpdateProperty(absl::string_view id, const hotel::v1::Property& patch,
                              const std::vector<std::string>& mask, absl::string_view if_match,
                              hotel::v1::Property* out);
  absl::Status UpdateRoomType(absl::string_view id, const hotel::v1::RoomType& patch,
                              const std::vector<std::string>& mask, absl::string_view if_match,
                              hotel::v1::RoomType* out);
  absl::Status UpdateRoom(absl::string_view property_id, absl::string_view number, const hotel::v1::Room& patch,
                          const std::vector<std::string>& mask, absl::string_view if_match, hotel::v1::Room* out);

 private:
  absl::Status FetchRoom(absl::string_view property_id, absl::string_view number, hotel::v1::Room* out);
  absl::Status ReadRoomWithImages(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                                  absl::string_view number, hotel::v1::Room* out);
  absl::Status ReadRoomTypeWithImages(db::Session& session, pqxx::transaction_base& txn, absl::string_view id,
                                      hotel::v1::RoomType* out);

  db::ConnectionPool& pool_;
  const std::string cdn_base_url_;
  RoomCache* const cache_;
};

// The room's own record (no images), in the caller's transaction; NOT_FOUND ROOM_NOT_FOUND.
absl::Status ReadRoomRecord(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                            absl::string_view number, hotel::v1::Room* out);

// A room's housekeeping from a row with the columns (names) of db/sql/_room_housekeeping_columns.sql,
// its etag too (1.5.0: its own, HousekeepingEtag).
void ReadRoomHousekeeping(const pqxx::row& row, hotel::v1::RoomHousekeeping* out);

// The records of the rooms of property_id named by numbers that exist, in the order of numbers, in
// the caller's transaction (no images).
std::vector<hotel::v1::Room> ReadRoomRecords(db::Session& session, pqxx::transaction_base& txn,
                                             const std::string& property_id, const std::vector<std::string>& numbers);

// The records of room data in the caller's transaction (no images); NOT_FOUND when missing.
absl::Status ReadPropertyRecord(db::Session& session, pqxx::transaction_base& txn, absl::string_view id,
                                hotel::v1::Property* out);
absl::Status ReadRoomTypeRecord(db::Session& session, pqxx::transaction_base& txn, absl::string_view id,
                                hotel::v1::RoomType* out);

// The writes of one record in the caller's transaction, shared by the API and hotel-admin's
// import. The caller has set the actor, and for a write of an existing record locked its row.
// Insert*: ALREADY_EXISTS when the id is taken; NOT_FOUND for a missing property; a room's type
// is checked as by CheckRoomType. A property's time zone must be one PostgreSQL knows.
absl::Status InsertProperty(db::Session& session, pqxx::transaction_base& txn, const hotel::v1::Property& property,
                            absl::string_view actor);
absl::Status InsertRoomType(db::Session& session, pqxx::transaction_base& txn, const hotel::v1::RoomType& room_type,
                            absl::string_view actor);
absl::Status InsertRoom(db::Session& session, pqxx::transaction_base& txn, const hotel::v1::Room& room,
                        absl::string_view actor);
absl::Status WriteProperty(db::Session& session, pqxx::transaction_base& txn, const hotel::v1::Property& property,
                           absl::string_view actor);
void WriteRoomType(db::Session& session, pqxx::transaction_base& txn, const hotel::v1::RoomType& room_type,
                   absl::string_view actor);
void WriteRoom(db::Session& session, pqxx::transaction_base& txn, const hotel::v1::Room& room, absl::string_view actor);
// The room type a room is given: NOT_FOUND, INVALID_ARGUMENT when of another property,
// FAILED_PRECONDITION ROOM_TYPE_RETIRED; locked FOR SHARE until the transaction ends.
absl::Status CheckRoomType(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                           absl::string_view room_type_id);
// Retirement rules: FAILED_PRECONDITION ROOM_HELD_BY_ISSUE naming the open issues holding the
// room out of order; ROOM_TYPE_IN_USE naming the active rooms of the type.
absl::Status CheckRoomRetirable(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                                absl::string_view number);
absl::Status CheckRoomTypeRetirable(db::Session& session, pqxx::transaction_base& txn, absl::string_view id);
}  // namespace hotel::rooms
