// Housekeeping requests validated into commands and queries: a write of one room or many, the
// transition rule, and the history's keyset pages. Pure: unit-tested
// (server/tests/unit/housekeeping_request_test.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hotel/v1/housekeeping.pb.h"

namespace hotel::housekeeping {

// The most rooms one SetHousekeeping call sets.
inline constexpr int kMaxRoomsPerSet = 1000;
// The longest reason and occupancy source.
inline constexpr int kMaxReasonLength = 500;
inline constexpr int kMaxSourceLength = 100;

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

struct HistoryQuery {
  std::string property_id;
  std::string room_number;
  int page_size = 0;
  std::vector<std::string> after;  // keyset: the last entry's sequence (newest first)
};
absl::StatusOr<HistoryQuery> ParseListHousekeepingHistory(const hotel::v1::ListHousekeepingHistoryRequest& request);
std::string Fingerprint(const HistoryQuery& query);

}  // namespace hotel::housekeeping
