#include "rooms/room_repository.h"

#include "absl/strings/str_cat.h"
#include "api/paging.h"
#include "common/errors.h"
#include "db/existence.h"
#include "db/sql.h"
#include "images/image_repository.h"
#include "rooms/room_sql.h"
#include "sql/rooms.h"

namespace hotel::rooms {

using hotel::v1::Property;
using hotel::v1::Room;
using hotel::v1::RoomType;

absl::Status RoomRepository::ListProperties(const PropertyListQuery& query, hotel::v1::ListPropertiesResponse* out) {
  return api::ListPage(pool_, BuildListPropertiesSql(query), query.page_size, "properties", Fingerprint(query), "", "",
                       out, ReadProperty, PropertyPageKey);
}

absl::Status RoomRepository::GetProperty(absl::string_view id, Property* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    return ReadPropertyRecord(session, txn, id, out);
  });
}

absl::Status RoomRepository::ListRoomTypes(const RoomTypeListQuery& query, hotel::v1::ListRoomTypesResponse* out) {
  return api::ListPage(pool_, BuildListRoomTypesSql(query), query.page_size, "room_types", Fingerprint(query),
                       query.property_id, "", out, ReadRoomType, RoomTypePageKey);
}

absl::Status RoomRepository::GetRoomType(absl::string_view id, RoomType* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    return ReadRoomTypeWithImages(session, txn, id, out);
  });
}

absl::Status RoomRepository::ListRooms(const RoomListQuery& query, hotel::v1::ListRoomsResponse* out) {
  return api::ListPage(pool_, BuildListRoomsSql(query), query.page_size, "rooms", Fingerprint(query), query.property_id,
                       "", out, ReadRoom, RoomPageKey);
}

absl::Status RoomRepository::GetRoom(absl::string_view property_id, absl::string_view number, Room* out) {
  if (GetCachedRoom(property_id, number, out)) return absl::OkStatus();
  return LoadRoom(property_id, number, out);
}

absl::Status RoomRepository::BatchGetRooms(const RoomBatchQuery& query, hotel::v1::BatchGetRoomsResponse* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    pqxx::nontransaction txn(session.connection());
    auto rows = session.Exec(
        txn, {std::string(sql::rooms::kSelectRoomsByNumber), {query.property_id, db::TextArrayLiteral(query.numbers)}});
    if (rows.size() < query.numbers.size()) {
      if (auto s = db::CheckPropertyExists(session, txn, query.property_id); !s.ok()) return s;
      std::vector<std::string> found;
      for (const auto& row : rows) found.push_back(row[room_columns::kNumber].c_str());
      return NotFoundError("ROOM_NOT_FOUND", absl::StrCat(db::DoNotExist("room", db::MissingKeys(query.numbers, found)),
                                                          " in property ", query.property_id));
    }
    out->clear_rooms();
    for (const auto& row : rows) ReadRoom(row, out->add_rooms());
    return absl::OkStatus();
  });
}

bool RoomRepository::GetCachedRoom(absl::string_view property_id, absl::string_view number, Room* out) {
  return cache_ != nullptr && cache_->Get(property_id, number, out);
}

absl::Status RoomRepository::LoadRoom(absl::string_view property_id, absl::string_view number, Room* out) {
  if (cache_ == nullptr) return FetchRoom(property_id, number, out);
  const uint64_t generation = cache_->Generation();
  // From the primary: a replica's older copy would outlive the invalidation it missed.
  const db::PrimaryReads fill;
  absl::Status status = FetchRoom(property_id, number, out);
  if (status.ok()) cache_->Put(property_id, number, *out, generation);
  return status;
}

absl::Status RoomRepository::FetchRoom(absl::string_view property_id, absl::string_view number, Room* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    return ReadRoomWithImages(session, txn, property_id, number, out);
  });
}

absl::Status RoomRepository::ReadRoomWithImages(db::Session& session, pqxx::transaction_base& txn,
                                                absl::string_view property_id, absl::string_view number, Room* out) {
  auto rows =
      session.Exec(txn, {std::string(sql::rooms::kSelectRoom), {std::string(property_id), std::string(number)}});
  if (rows.empty()) {
    return NotFoundError("ROOM_NOT_FOUND", absl::StrCat("room ", number, " does not exist in property ", property_id));
  }
  ReadRoom(rows[0], out);
  images::ReadImages(session, txn, images::ImageOwner::Room(std::string(property_id), std::string(number)),
                     cdn_base_url_, out->mutable_images());
  return absl::OkStatus();
}

absl::Status RoomRepository::ReadRoomTypeWithImages(db::Session& session, pqxx::transaction_base& txn,
                                                    absl::string_view id, RoomType* out) {
  if (auto s = ReadRoomTypeRecord(session, txn, id, out); !s.ok()) return s;
  images::ReadImages(session, txn, images::ImageOwner::RoomType(std::string(id)), cdn_base_url_, out->mutable_images());
  return absl::OkStatus();
}

absl::Status ReadRoomRecord(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                            absl::string_view number, hotel::v1::Room* out) {
  auto rows =
      session.Exec(txn, {std::string(sql::rooms::kSelectRoom), {std::string(property_id), std::string(number)}});
  if (rows.empty()) return NotFoundError("ROOM_NOT_FOUND", absl::StrCat("room ", number, " does not exist"));
  ReadRoom(rows[0], out);
  return absl::OkStatus();
}

std::vector<hotel::v1::Room> ReadRoomRecords(db::Session& session, pqxx::transaction_base& txn,
                                             const std::string& property_id, const std::vector<std::string>& numbers) {
  auto rows =
      session.Exec(txn, {std::string(sql::rooms::kSelectRoomsByNumber), {property_id, db::TextArrayLiteral(numbers)}});
  std::vector<hotel::v1::Room> rooms(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) ReadRoom(rows[i], &rooms[i]);
  return rooms;
}

}  // namespace hotel::rooms

namespace hotel::rooms {

absl::Status ReadPropertyRecord(db::Session& session, pqxx::transaction_base& txn, absl::string_view id,
                                Property* out) {
  auto rows = session.Exec(txn, {std::string(sql::rooms::kSelectProperty), {std::string(id)}});
  if (rows.empty()) return NotFoundError("PROPERTY_NOT_FOUND", absl::StrCat("property ", id, " does not exist"));
  ReadProperty(rows[0], out);
  return absl::OkStatus();
}

absl::Status ReadRoomTypeRecord(db::Session& session, pqxx::transaction_base& txn, absl::string_view id,
                                RoomType* out) {
  auto rows = session.Exec(txn, {std::string(sql::rooms::kSelectRoomType), {std::string(id)}});
  if (rows.empty()) return NotFoundError("ROOM_TYPE_NOT_FOUND", absl::StrCat("room type ", id, " does not exist"));
  ReadRoomType(rows[0], out);
  return absl::OkStatus();
}

}  // namespace hotel::rooms
