// Room block requests validated into commands and queries: creates (one or a batch), the list
// filters with their keyset pages, the availability range, and the plan of an update. Pure:
// every function is unit-tested (server/tests/unit/block_request_test.cc).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/civil_time.h"
#include "api/request_fields.h"
#include "api/update_mask.h"
#include "common/errors.h"
#include "hotel/v1/room_blocks.pb.h"

namespace hotel::blocks {

// The most blocks one batch creates.
inline constexpr int kMaxBatchSize = 500;

struct NewRoomBlock {
  std::string property_id;
  std::string room_number;
  std::string type;        // OUT_OF_ORDER | OUT_OF_SERVICE
  std::string start_date;  // YYYY-MM-DD
  std::string end_date;    // YYYY-MM-DD, "" for no end
  std::string reason;
  std::string issue_id;  // "" for none
  std::string updated_by;
  std::string request_id;
  std::string request_hash;
  std::string return_condition;  // DIRTY | CLEAN | INSPECTED
  bool allow_occupied = false;   // taken even while a guest is in the room
};
// field_prefix names the item in error fields ("requests[2]." in a batch, "" alone).
absl::StatusOr<NewRoomBlock> ValidateCreateRoomBlock(const hotel::v1::CreateRoomBlockRequest& request,
                                                     absl::string_view field_prefix = "");
// Every item validated (all their errors at once), and no two OUT_OF_ORDER items of one room
// overlapping each other (the database only sees the rows of other requests).
absl::StatusOr<std::vector<NewRoomBlock>> ValidateBatchCreateRoomBlocks(
    const hotel::v1::BatchCreateRoomBlocksRequest& request);

// Whether [start1, end1) and [start2, end2) share a date; an empty end is no end.
bool DatesOverlap(absl::string_view start1, absl::string_view end1, absl::string_view start2, absl::string_view end2);

struct RoomBlockListQuery {
  std::string property_id;
  std::string room_number;
  std::optional<std::string> type;
  std::string from;  // "" for open
  std::string to;    // "" for open
  bool show_cancelled = false;
  int page_size = 0;
  std::vector<std::string> after;  // keyset: property id, start date (days since 1970-01-01), id
};
absl::StatusOr<RoomBlockListQuery> ParseListRoomBlocks(const hotel::v1::ListRoomBlocksRequest& request);
std::string Fingerprint(const RoomBlockListQuery& query);

struct AvailabilityQuery {
  std::string property_id;
  api::DateRange dates;
};
absl::StatusOr<AvailabilityQuery> ParseGetPropertyAvailability(
    const hotel::v1::GetPropertyAvailabilityRequest& request);

// What an update does to a block: its new state, and whether anything changed.
using RoomBlockUpdatePlan = api::UpdatePlan<hotel::v1::RoomBlock>;
// Checks the etag (body or if_match), the mask, the block being active and the new dates;
// FAILED_PRECONDITION ROOM_BLOCK_CANCELLED for a cancelled block.
absl::StatusOr<RoomBlockUpdatePlan> PlanRoomBlockUpdate(const hotel::v1::RoomBlock& current,
                                                        const hotel::v1::RoomBlock& patch,
                                                        const std::vector<std::string>& mask,
                                                        absl::string_view if_match);

}  // namespace hotel::blocks
