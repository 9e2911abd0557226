// The statements that read equipment, and the row reader beside them.
#pragma once

#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "db/sql.h"
#include "equipment/equipment_request.h"
#include "hotel/v1/maintenance.pb.h"

namespace hotel::equipment {

// The columns of equipment/sql/_equipment_select.sql, in order: readers and page keys use these
// names, never numbers (sql_columns_test checks the order against the file).
namespace equipment_columns {
enum : int {
  kId,
  kPropertyId,
  kRoomNumber,
  kName,
  kType,
  kManufacturer,
  kModel,
  kSerialNumber,
  kInstalledOn,
  kWarrantyExpiresOn,
  kStatus,
  kNotes,
  kCreatedAtMicros,
  kCount
};
}  // namespace equipment_columns

void ReadEquipment(const pqxx::row& row, hotel::v1::Equipment* out);

// page_size + 1 rows, in registration order.
db::SqlQuery BuildListEquipmentSql(const EquipmentListQuery& query);

// The page-token key of a listed row: created_at (micros), id.
std::vector<std::string> EquipmentPageKey(const pqxx::row& row);

}  // namespace hotel::equipment
