// Equipment requests validated into a command (register) and a query (list). Pure, unit-tested.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hotel/v1/maintenance.pb.h"

namespace hotel::equipment {

struct NewEquipment {
  std::string property_id;
  std::string room_number;
  std::string name;
  std::string type;
  std::string manufacturer;
  std::string model;
  std::string serial_number;
  std::string installed_on;         // YYYY-MM-DD or ""
  std::string warranty_expires_on;  // YYYY-MM-DD or ""
  std::string status;               // enum name
  std::string notes;
  std::string request_id;
  std::string request_hash;
};

absl::StatusOr<NewEquipment> ValidateCreateEquipment(const hotel::v1::CreateEquipmentRequest& request);

struct EquipmentListQuery {
  std::string property_id;
  std::string room_number;
  std::optional<std::string> status;
  int page_size = 0;
  std::vector<std::string> after;  // keyset: created_at micros, id
};

absl::StatusOr<EquipmentListQuery> ParseListEquipment(const hotel::v1::ListEquipmentRequest& request);

std::string Fingerprint(const EquipmentListQuery& query);

}  // namespace hotel::equipment
