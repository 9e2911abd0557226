// Equipment in PostgreSQL. Registering is idempotent by request_id.
#pragma once

#include "absl/status/status.h"
#include "db/pool.h"
#include "equipment/equipment_request.h"
#include "hotel/v1/maintenance.pb.h"

namespace hotel::equipment {

class EquipmentRepository {
 public:
  explicit EquipmentRepository(db::ConnectionPool& pool) : pool_(pool) {}

  // NOT_FOUND PROPERTY_NOT_FOUND / ROOM_NOT_FOUND for an unknown room.
  absl::Status List(const EquipmentListQuery& query, hotel::v1::ListEquipmentResponse* out);
  absl::Status Create(const NewEquipment& equipment, hotel::v1::Equipment* out);

 private:
  db::ConnectionPool& pool_;
};

}  // namespace hotel::equipment
