#include "equipment/equipment_repository.h"

#include "absl/strings/str_cat.h"
#include "api/idempotency.h"
#include "api/paging.h"
#include "common/errors.h"
#include "db/existence.h"
#include "db/sql.h"
#include "equipment/equipment_sql.h"
#include "sql/equipment.h"

namespace hotel::equipment {
namespace {

using hotel::v1::Equipment;

absl::Status LoadEquipment(db::Session& session, pqxx::transaction_base& txn, absl::string_view id, Equipment* out) {
  auto rows = session.Exec(txn, {std::string(sql::equipment::kSelectEquipment), {std::string(id)}});
  if (rows.empty()) return NotFoundError("EQUIPMENT_NOT_FOUND", absl::StrCat("equipment ", id, " does not exist"));
  ReadEquipment(rows[0], out);
  return absl::OkStatus();
}

}  // namespace

absl::Status EquipmentRepository::List(const EquipmentListQuery& query, hotel::v1::ListEquipmentResponse* out) {
  return api::ListPage(pool_, BuildListEquipmentSql(query), query.page_size, "equipment", Fingerprint(query),
                       query.property_id, query.room_number, out, ReadEquipment, EquipmentPageKey);
}

absl::Status EquipmentRepository::Create(const NewEquipment& in, Equipment* out) {
  const db::SqlQuery insert{
      std::string(sql::equipment::kInsertEquipment),
      {in.property_id, in.room_number, in.name, in.type, in.manufacturer, in.model, in.serial_number, in.installed_on,
       in.warranty_expires_on, in.status, in.notes, in.request_id, in.request_hash}};
  return api::CreateOnce(
      pool_, insert, sql::equipment::kFindEquipmentRequest, in.request_id, in.request_hash,
      [&](db::Session& session, pqxx::transaction_base& txn) {
        return db::CheckRoomExists(session, txn, in.property_id, in.room_number);
      },
      [&](db::Session& session, pqxx::transaction_base& txn, const std::string& id) {
        return LoadEquipment(session, txn, id, out);
      });
}

void ReadRoomEquipment(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                       absl::string_view number, int limit,
                       google::protobuf::RepeatedPtrField<hotel::v1::Equipment>* out) {
  const db::SqlQuery sql{std::string(sql::equipment::kSelectRoomEquipment),
                         {std::string(property_id), std::string(number), absl::StrCat(limit)}};
  for (const auto& row : session.Exec(txn, sql)) ReadEquipment(row, out->Add());
}

}  // namespace hotel::equipment
