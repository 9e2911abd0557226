// The statements that read equipment, and the row reader beside them.
#pragma once

#include <pqxx/pqxx>

#include "absl/strings/string_view.h"
#include "db/sql.h"
#include "equipment/equipment_request.h"
#include "hotel/v1/maintenance.pb.h"

namespace hotel::equipment {

// "SELECT <columns> FROM equipment e" — read by ReadEquipment.
extern const absl::string_view kEquipmentSelect;

void ReadEquipment(const pqxx::row& row, hotel::v1::Equipment* out);

// page_size + 1 rows, in registration order.
db::SqlQuery BuildListEquipmentSql(const EquipmentListQuery& query);

}  // namespace hotel::equipment
