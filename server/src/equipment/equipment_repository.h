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

// The equipment of one room, by registration time, at most limit rows (a room's maintenance overview).
void ReadRoomEquipment(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                       absl::string_view number, int limit,
                       google::protobuf::RepeatedPtrField<hotel::v1::Equipment>* out);

}  // namespace hotel::equipment
