#include "housekeeping/housekeeping_request.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "api/idempotency.h"
#include "api/identifiers.h"
#include "api/paging.h"
#include "api/request_fields.h"
#include "api/update_mask.h"
#include "common/errors.h"
#include "common/page_token.h"

namespace hotel::housekeeping {
namespace {

using hotel::v1::RoomHousekeeping;

// A PMS clock may run a little ahead of ours; further ahead is a mistake.
constexpr absl::Duration kObservationClockSkew = absl::Minutes(5);

// The fields a one-room update and a bulk set share, read into out.
template <typename Request>
void ReadChange(const Request& request, HousekeepingWrite& out, FieldErrors& errors) {
  out.condition = api::EnumField<RoomHousekeeping::Condition>("condition", request.condition(), errors);
  out.occupancy = api::EnumField<RoomHousekeeping::Occupancy>("occupancy", request.occupancy(), errors);
  if (request.condition() == 0 && request.occupancy() == 0) {
    errors.Add("condition", "is required unless occupancy is set: a write changes one of them or both");
  }
  out.occupancy_source = api::Text("occupancy_source", request.occupancy_source(), kMaxSourceLength, false, errors);
  if (request.occupancy() != 0 && out.occupancy_source.empty()) {
    errors.Add("occupancy_source", "is required with occupancy: the system that reports it, e.g. \"opera-pms\"");
  }
  if (request.has_occupancy_observe_time()) {
    if (request.occupancy() == 0) {
      errors.Add("occupancy_observe_time", "is only accepted with occupancy");
    } else {
      const auto& ts = request.occupancy_observe_time();
      const absl::Time at = absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
      if (ts.seconds() < 0 || ts.nanos() < 0 || ts.nanos() > 999999999 || at > absl::Now() + kObservationClockSkew) {
        errors.Add("occupancy_observe_time", "must be a valid time, not in the future");
      } else {
        out.observed_micros = absl::ToUnixMicros(at);
      }
    }
  }
  out.reason = api::Text("reason", request.reason(), kMaxReasonLength, false, errors);
  out.actor = api::Actor(request.updated_by(), errors);
}

}  // namespace

std::string HousekeepingWrite::RoomField(size_t i) const {
  return mode == WriteMode::kOneRoom ? "room_number" : absl::StrCat("room_numbers[", i, "]");
}

absl::StatusOr<HousekeepingWrite> ValidateUpdateRoomHousekeeping(
    const hotel::v1::UpdateRoomHousekeepingRequest& request, absl::string_view if_match) {
  FieldErrors errors;
  HousekeepingWrite out;
  if (request.property_id().empty()) return api::PropertyIdRequired("room numbers are only unique within a property");
  api::CheckRoom("property_id", request.property_id(), "room_number", request.room_number(), errors);
  out.property_id = request.property_id();
  out.room_numbers = {request.room_number()};
  out.mode = WriteMode::kOneRoom;
  ReadChange(request.housekeeping(), out, errors);
  if (!errors.empty()) return errors.ToStatus();
  out.etag = request.housekeeping().etag();
  out.if_match = std::string(if_match);
  return out;
}

absl::StatusOr<HousekeepingWrite> ValidateSetHousekeeping(const hotel::v1::SetHousekeepingRequest& request) {
  FieldErrors errors;
  HousekeepingWrite out;
  api::Collect(api::ValidatePropertyId("property_id", request.property_id()), errors);
  out.property_id = request.property_id();
  out.mode = WriteMode::kBulk;
  const int n = request.room_numbers_size();
  if (n == 0 || n > kMaxRoomsPerSet) {
    errors.Add("room_numbers", absl::StrCat("must hold 1 to ", kMaxRoomsPerSet, " room numbers, not ", n));
  }
  std::set<absl::string_view> seen;
  for (int i = 0; i < n && n <= kMaxRoomsPerSet; ++i) {
    const std::string& number = request.room_numbers(i);
    const std::string field = absl::StrCat("room_numbers[", i, "]");
    if (auto s = api::ValidateRoomNumber(field, number); !s.ok()) {
      api::Collect(s, errors);
    } else if (!seen.insert(number).second) {
      errors.Add(field, absl::StrCat("room ", number, " is named twice"));
    }
    out.room_numbers.push_back(number);
  }
  ReadChange(request, out, errors);
  out.expected_condition =
      api::EnumField<RoomHousekeeping::Condition>("expected_condition", request.expected_condition(), errors);
  api::CheckRequestId(request.request_id(), errors);
  if (!errors.empty()) return errors.ToStatus();
  out.request_id = request.request_id();
  out.request_hash = api::RequestFingerprint(request);
  return out;
}

absl::Status CheckTransition(absl::string_view room, absl::string_view from, absl::string_view to) {
  if (to == "INSPECTED" && from != "CLEAN" && from != "INSPECTED") {
    return FailedPreconditionError(
        "ROOM_NOT_CLEAN",
        absl::StrCat("room ", room, " is ", from, ": only a CLEAN room can be INSPECTED; clean it first"));
  }
  return absl::OkStatus();
}

absl::StatusOr<HistoryQuery> ParseListHousekeepingHistory(const hotel::v1::ListHousekeepingHistoryRequest& request) {
  FieldErrors errors;
  HistoryQuery query;
  if (request.property_id().empty()) return api::PropertyIdRequired("room numbers are only unique within a property");
  api::CheckRoom("property_id", request.property_id(), "room_number", request.room_number(), errors);
  query.property_id = request.property_id();
  query.room_number = request.room_number();
  if (auto s = api::ApplyPaging(request, "housekeeping-history", {1}, Fingerprint(query), query, errors); !s.ok())
    return s;
  if (!query.after.empty()) {
    int64_t sequence = 0;
    if (!absl::SimpleAtoi(query.after[0], &sequence)) return InvalidPageToken();
  }
  return query;
}

std::string Fingerprint(const HistoryQuery& q) {
  return FilterFingerprint(absl::StrCat("property=", q.property_id, "|room=", q.room_number));
}

}  // namespace hotel::housekeeping
