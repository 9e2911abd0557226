#include "equipment/equipment_sql.h"

#include "absl/strings/str_cat.h"
#include "db/timestamps.h"
#include "sql/equipment.h"

namespace hotel::equipment {

using hotel::v1::Equipment;

void ReadEquipment(const pqxx::row& row, Equipment* out) {
  out->set_id(row[equipment_columns::kId].c_str());
  out->set_property_id(row[equipment_columns::kPropertyId].c_str());
  out->set_room_number(row[equipment_columns::kRoomNumber].c_str());
  out->set_name(row[equipment_columns::kName].c_str());
  out->set_type(row[equipment_columns::kType].c_str());
  out->set_manufacturer(row[equipment_columns::kManufacturer].c_str());
  out->set_model(row[equipment_columns::kModel].c_str());
  out->set_serial_number(row[equipment_columns::kSerialNumber].c_str());
  out->set_installed_on(row[equipment_columns::kInstalledOn].c_str());
  out->set_warranty_expires_on(row[equipment_columns::kWarrantyExpiresOn].c_str());
  out->set_status(db::ParseEnum<Equipment::Status>(row[equipment_columns::kStatus].c_str()));
  out->set_notes(row[equipment_columns::kNotes].c_str());
  db::ReadTimestamp(row[equipment_columns::kCreatedAtMicros], out->mutable_created_at());
}

db::SqlQuery BuildListEquipmentSql(const EquipmentListQuery& q) {
  db::SqlQuery sql;
  db::WhereClause where;
  where.Add(absl::StrCat("e.property_id = ", sql.Bind(q.property_id)));
  where.Add(absl::StrCat("e.room_number = ", sql.Bind(q.room_number)));
  if (q.status) where.Add(absl::StrCat("e.status = ", sql.Bind(*q.status)));
  if (!q.after.empty()) {
    const std::string at = db::TimestampFromKey(sql, q.after[0]);
    const std::string id = sql.Bind(q.after[1]);
    where.Add(absl::StrCat("(e.created_at, e.id) > (", at, ", ", id, "::uuid)"));
  }
  sql.text = absl::StrCat(sql::equipment::kEquipmentSelect, where.ToSql(), " ORDER BY e.created_at, e.id");
  sql.text += db::Limit(sql, q.page_size);
  return sql;
}

std::vector<std::string> EquipmentPageKey(const pqxx::row& row) {
  return {row[equipment_columns::kCreatedAtMicros].c_str(), row[equipment_columns::kId].c_str()};
}

}  // namespace hotel::equipment
