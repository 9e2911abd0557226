// What a room's housekeeping state says to a front desk (1.5.0): its discrepancy (what the PMS
// says against what housekeeping found) and whether it is ready for a guest, and why not. Read
// with every room (rooms::ReadRoomHousekeeping); the housekeeping area's list filter, overview and
// work list say the same in SQL. Pure: unit-tested (server/tests/unit/housekeeping_request_test.cc).
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "hotel/v1/housekeeping.pb.h"

namespace hotel::rooms {

// What a room's readiness is read from (1.5.0).
struct ReadinessFacts {
  std::string condition;           // DIRTY | CLEAN | INSPECTED
  std::string occupancy;           // VACANT | OCCUPIED | UNKNOWN
  std::string observed_occupancy;  // VACANT | OCCUPIED, "" while housekeeping has not looked
  bool out_of_order = false;
  bool out_of_service_today = false;  // an active OUT_OF_SERVICE block covers the property's today
  bool inspection_required = true;    // the property's HousekeepingPolicy.inspection_required
};

// OPERA's discrepancies: SKIP when the PMS says OCCUPIED and housekeeping found the room VACANT,
// SLEEP when the PMS says VACANT and housekeeping found it OCCUPIED, else none (unspecified).
hotel::v1::RoomHousekeeping::Discrepancy DiscrepancyOf(absl::string_view occupancy,
                                                       absl::string_view observed_occupancy);

// Why a room cannot be given to a guest now, in enum order; empty: it is ready (in order, under no
// OUT_OF_SERVICE block today, VACANT, INSPECTED or CLEAN when inspection is not required, and
// without a discrepancy). The room list's ready filter and the overview's count say the same in
// SQL (db/sql/_room_ready.sql); the repository tests hold the two together.
std::vector<hotel::v1::RoomReadiness::NotReadyReason> NotReadyReasons(const ReadinessFacts& room);

// Sets ready and not_ready_reasons of out from room.
void SetReadiness(const ReadinessFacts& room, hotel::v1::RoomHousekeeping* out);

}  // namespace hotel::rooms
