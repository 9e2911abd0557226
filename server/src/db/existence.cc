#include "db/existence.h"

#include "absl/strings/str_cat.h"
#include "common/errors.h"
#include "db/sql.h"
#include "sql/db.h"

namespace hotel::db {

absl::Status CheckPropertyExists(Session& session, pqxx::transaction_base& txn, absl::string_view id) {
  if (session.Exec(txn, SqlQuery{std::string(sql::db::kPropertyExists), {std::string(id)}}).empty()) {
    return NotFoundError("PROPERTY_NOT_FOUND", absl::StrCat("property ", id, " does not exist"));
  }
  return absl::OkStatus();
}

absl::Status CheckRoomExists(Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                             absl::string_view number, std::string* time_zone) {
  const SqlQuery sql{std::string(sql::db::kRoomExists), {std::string(property_id), std::string(number)}};
  auto rows = session.Exec(txn, sql);
  if (rows.empty())
    return NotFoundError("PROPERTY_NOT_FOUND", absl::StrCat("property ", property_id, " does not exist"));
  if (rows[0]["number"].is_null()) {
    return NotFoundError("ROOM_NOT_FOUND", absl::StrCat("room ", number, " does not exist in property ", property_id));
  }
  if (time_zone != nullptr) *time_zone = rows[0]["time_zone"].c_str();
  return absl::OkStatus();
}

absl::Status CheckRoomTypeExists(Session& session, pqxx::transaction_base& txn, absl::string_view id) {
  if (session.Exec(txn, SqlQuery{std::string(sql::db::kRoomTypeExists), {std::string(id)}}).empty()) {
    return NotFoundError("ROOM_TYPE_NOT_FOUND", absl::StrCat("room type ", id, " does not exist"));
  }
  return absl::OkStatus();
}

absl::Status CheckListScopeExists(Session& session, pqxx::transaction_base& txn, const std::string& property_id,
                                  const std::string& room_number) {
  if (!room_number.empty()) return CheckRoomExists(session, txn, property_id, room_number);
  return CheckPropertyExists(session, txn, property_id);
}

absl::Status CheckEquipmentInRoom(Session& session, pqxx::transaction_base& txn, absl::string_view equipment_id,
                                  absl::string_view property_id, absl::string_view number) {
  const SqlQuery sql{std::string(sql::db::kEquipmentInRoom),
                     {std::string(equipment_id), std::string(property_id), std::string(number)}};
  if (session.Exec(txn, sql).empty()) {
    return NotFoundError("EQUIPMENT_NOT_FOUND", absl::StrCat("equipment ", equipment_id, " does not exist in room ",
                                                             number, " of property ", property_id));
  }
  return absl::OkStatus();
}
absl::Status CheckRoomTarget(Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                             absl::string_view number, absl::string_view equipment_id) {
  if (auto s = CheckRoomExists(session, txn, property_id, number); !s.ok() || equipment_id.empty()) return s;
  return CheckEquipmentInRoom(session, txn, equipment_id, property_id, number);
}

}  // namespace hotel::db
