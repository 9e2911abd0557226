// Housekeeping requests validated into commands and queries: a write of one room or many, the
// transition rule, what a write does to each room (check-out, observation order, service
// requests), a room's discrepancy and readiness, the work list's items, the history's keyset pages
// and the plan of a policy update. Pure: unit-tested
// (server/tests/unit/housekeeping_request_test.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "api/update_mask.h"
#include "hotel/v1/housekeeping.pb.h"

namespace hotel::housekeeping {

// The most rooms one SetHousekeeping call sets.
inline constexpr int kMaxRoomsPerSet = 1000;
// The longest reason and occupancy source.
inline constexpr int kMaxReasonLength = 500;
inline constexpr int kMaxSourceLength = 100;
// The last cleaning priority (1 is first; 0 is none).
inline constexpr int kMaxCleaningPriority = 999;

// Which request a write came from: UpdateRoomHousekeeping (one room, its etag checked and
// answered) or SetHousekeeping (many rooms at once, no etags).
enum class WriteMode { kOneRoom, kBulk };

// A housekeeping write to rooms of one property: what changes (nullopt: unchanged) and who says so.
struct HousekeepingWrite {
  std::string property_id;
  std::vector<std::string> room_numbers;
  WriteMode mode = WriteMode::kBulk;
  std::optional<std::string> condition;    // DIRTY | CLEAN | INSPECTED
  std::optional<std::string> occupancy;    // VACANT | OCCUPIED | UNKNOWN
  std::string occupancy_source;            // with occupancy
  std::optional<int64_t> observed_micros;  // with occupancy; nullopt: now
  std::string reason;
  std::string actor;
  std::optional<std::string> expected_condition;
  // 1.5.0: what housekeeping found (VACANT | OCCUPIED), the guest's service request (NONE |
  // DO_NOT_DISTURB | MAKE_UP_ROOM | SERVICE_DECLINED) and the cleaning priority (0 to 999).
  std::optional<std::string> observed_occupancy;
  std::optional<std::string> service_request;
  std::optional<int> cleaning_priority;
  std::string etag;      // one room's: body etag
  std::string if_match;  // one room's: If-Match header
  std::string request_id;
  std::string request_hash;

  // How errors name the i-th room: room_number for a one-room write, else room_numbers[i].
  std::string RoomField(size_t i) const;
};

absl::StatusOr<HousekeepingWrite> ValidateUpdateRoomHousekeeping(
    const hotel::v1::UpdateRoomHousekeepingRequest& request, absl::string_view if_match);
absl::StatusOr<HousekeepingWrite> ValidateSetHousekeeping(const hotel::v1::SetHousekeepingRequest& request);

// The transition rule: OK, or FAILED_PRECONDITION ROOM_NOT_CLEAN when `to` is INSPECTED and the
// room (named by room) is neither CLEAN nor INSPECTED. Every other change is allowed.
absl::Status CheckTransition(absl::string_view room, absl::string_view from, absl::string_view to);

// A locked room as a write finds it.
struct RoomState {
  std::string condition;
  std::string occupancy;
  std::optional<int64_t> observed_micros;  // nullopt: no system has reported the occupancy
};

// What a write does to one room (which CheckTransition and the other checks let through).
struct RoomWritePlan {
  std::optional<std::string> condition;           // nullopt: unchanged
  bool occupancy_applied = false;                 // false: occupancy, its source and observation unchanged
  std::string occupancy;                          // the room's occupancy after the write
  std::optional<std::string> service_request;     // nullopt: unchanged
  std::optional<std::string> observed_occupancy;  // nullopt: unchanged
  std::optional<int> cleaning_priority;           // nullopt: unchanged
  std::string reason;
  // Whether the room is written at all: a write whose only part is an occupancy observed before
  // the stored one leaves no history entry and no change on the feed.
  bool Writes() const {
    return condition.has_value() || occupancy_applied || service_request.has_value() ||
           observed_occupancy.has_value() || cleaning_priority.has_value();
  }
};

// The reason a check-out's history entry gives, after the write's own reason in parentheses when
// it has one.
inline constexpr absl::string_view kCheckoutReason = "Check-out: DIRTY by the housekeeping policy";

// The write's effect on room: its occupancy only when observed (observed_micros: the write's
// occupancy_observe_time, or now) no earlier than the stored observation; and a move from
// OCCUPIED to VACANT that names no condition is a check-out, which gives the room
// checkout_condition (a HousekeepingPolicy.ConditionRule name: DIRTY, or KEEP for unchanged). A
// service request stands for a guest in the room: a write that moves the occupancy from OCCUPIED
// to anything else and names none clears it (NONE).
RoomWritePlan PlanRoomWrite(const HousekeepingWrite& write, const RoomState& room, int64_t observed_micros,
                            absl::string_view checkout_condition);

// A service request other than NONE needs a guest: OK, or FAILED_PRECONDITION ROOM_NOT_OCCUPIED
// naming the room (room) when the plan sets one and leaves the room other than OCCUPIED.
absl::Status CheckServiceRequest(absl::string_view room, const RoomWritePlan& plan);

// The work-list item of a room in order (1.5.0): DEPARTURE when DIRTY and not OCCUPIED, STAYOVER
// when DIRTY and OCCUPIED, INSPECT when CLEAN and inspection is required; none otherwise.
std::optional<hotel::v1::HousekeepingOverview::WorkItem::Type> WorkItemType(absl::string_view condition,
                                                                            absl::string_view occupancy,
                                                                            bool inspection_required);

// Whether the guest asked for no service (DO_NOT_DISTURB, SERVICE_DECLINED): the room's stay-over
// goes to the overview's no_service_list, not its work_list.
bool ServiceWithheld(absl::string_view service_request);

// The policy of a property that never changed it.
hotel::v1::HousekeepingPolicy DefaultPolicy(absl::string_view property_id);

// The most days vacant_dirty_after_days counts.
inline constexpr int kMaxVacantDirtyAfterDays = 7;

// An update of a property's policy: the fields update_mask names (empty: those set in patch),
// each checked (INVALID_ARGUMENT naming it), then the etag (body or if_match; ABORTED
// ETAG_MISMATCH).
absl::StatusOr<api::UpdatePlan<hotel::v1::HousekeepingPolicy>> PlanPolicyUpdate(
    const hotel::v1::HousekeepingPolicy& current, const hotel::v1::HousekeepingPolicy& patch,
    const std::vector<std::string>& mask, absl::string_view if_match);

struct HistoryQuery {
  std::string property_id;
  std::string room_number;
  int page_size = 0;
  std::vector<std::string> after;  // keyset: the last entry's sequence (newest first)
};
absl::StatusOr<HistoryQuery> ParseListHousekeepingHistory(const hotel::v1::ListHousekeepingHistoryRequest& request);
std::string Fingerprint(const HistoryQuery& query);

}  // namespace hotel::housekeeping
