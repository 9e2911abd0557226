#include "rooms/room_readiness.h"

namespace hotel::rooms {

using hotel::v1::RoomHousekeeping;

RoomHousekeeping::Discrepancy DiscrepancyOf(absl::string_view occupancy, absl::string_view observed_occupancy) {
  if (occupancy == "OCCUPIED" && observed_occupancy == "VACANT") return RoomHousekeeping::SKIP;
  if (occupancy == "VACANT" && observed_occupancy == "OCCUPIED") return RoomHousekeeping::SLEEP;
  return RoomHousekeeping::DISCREPANCY_UNSPECIFIED;
}

std::vector<hotel::v1::RoomReadiness::NotReadyReason> NotReadyReasons(const ReadinessFacts& room) {
  using hotel::v1::RoomReadiness;
  std::vector<RoomReadiness::NotReadyReason> reasons;
  if (room.occupancy == "OCCUPIED") reasons.push_back(RoomReadiness::OCCUPIED);
  if (room.condition == "DIRTY") reasons.push_back(RoomReadiness::DIRTY);
  if (room.condition == "CLEAN" && room.inspection_required) reasons.push_back(RoomReadiness::NOT_INSPECTED);
  if (room.out_of_order) reasons.push_back(RoomReadiness::OUT_OF_ORDER);
  if (room.out_of_service_today) reasons.push_back(RoomReadiness::OUT_OF_SERVICE);
  if (DiscrepancyOf(room.occupancy, room.observed_occupancy) != RoomHousekeeping::DISCREPANCY_UNSPECIFIED) {
    reasons.push_back(RoomReadiness::DISCREPANCY);
  }
  if (room.occupancy != "OCCUPIED" && room.occupancy != "VACANT") reasons.push_back(RoomReadiness::OCCUPANCY_UNKNOWN);
  return reasons;
}

void SetReadiness(const ReadinessFacts& room, RoomHousekeeping* out) {
  out->clear_not_ready_reasons();
  for (auto reason : NotReadyReasons(room)) out->add_not_ready_reasons(reason);
  out->set_ready(out->not_ready_reasons_size() == 0);
}

}  // namespace hotel::rooms
