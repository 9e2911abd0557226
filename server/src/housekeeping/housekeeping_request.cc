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
  out.observed_occupancy =
      api::EnumField<RoomHousekeeping::Occupancy>("observed_occupancy", request.observed_occupancy(), errors);
  if (request.observed_occupancy() == RoomHousekeeping::UNKNOWN) {
    errors.Add("observed_occupancy", "must be VACANT or OCCUPIED: what housekeeping found in the room");
  }
  out.service_request =
      api::EnumField<RoomHousekeeping::ServiceRequest>("service_request", request.service_request(), errors);
  if (request.has_cleaning_priority()) {
    if (request.cleaning_priority() < 0 || request.cleaning_priority() > kMaxCleaningPriority) {
      errors.Add("cleaning_priority", absl::StrCat("must be 0 (none) to ", kMaxCleaningPriority, " (1 first), not ",
                                                   request.cleaning_priority()));
    }
    out.cleaning_priority = request.cleaning_priority();
  }
  if (request.condition() == 0 && request.occupancy() == 0 && request.observed_occupancy() == 0 &&
      request.service_request() == 0 && !request.has_cleaning_priority()) {
    errors.Add("condition",
               "is required unless occupancy, observed_occupancy, service_request or cleaning_priority is set: a "
               "write changes at least one of them");
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
  return api::WithRequestId(request, std::move(out), errors);
}

absl::Status CheckTransition(absl::string_view room, absl::string_view from, absl::string_view to) {
  if (to == "INSPECTED" && from != "CLEAN" && from != "INSPECTED") {
    return FailedPreconditionError(
        "ROOM_NOT_CLEAN",
        absl::StrCat("room ", room, " is ", from, ": only a CLEAN room can be INSPECTED; clean it first"));
  }
  return absl::OkStatus();
}

RoomWritePlan PlanRoomWrite(const HousekeepingWrite& write, const RoomState& room, int64_t observed_micros,
                            absl::string_view checkout_condition) {
  RoomWritePlan plan;
  plan.condition = write.condition;
  plan.reason = write.reason;
  // A retried or reordered PMS message must not overwrite what a later observation said.
  plan.occupancy_applied =
      write.occupancy.has_value() && (!room.observed_micros.has_value() || observed_micros >= *room.observed_micros);
  plan.occupancy = plan.occupancy_applied ? *write.occupancy : room.occupancy;
  plan.observed_occupancy = write.observed_occupancy;
  plan.cleaning_priority = write.cleaning_priority;
  plan.service_request = write.service_request;
  // A service request is the guest's: it leaves with them.
  if (room.occupancy == "OCCUPIED" && plan.occupancy != "OCCUPIED" && !write.service_request) {
    plan.service_request = "NONE";
  }
  const bool checkout = plan.occupancy_applied && room.occupancy == "OCCUPIED" && *write.occupancy == "VACANT";
  if (checkout && !write.condition && checkout_condition == "DIRTY") {
    plan.condition = "DIRTY";
    plan.reason =
        write.reason.empty() ? std::string(kCheckoutReason) : absl::StrCat(write.reason, " (", kCheckoutReason, ")");
  }
  return plan;
}

absl::Status CheckServiceRequest(absl::string_view room, const RoomWritePlan& plan) {
  if (!plan.service_request || *plan.service_request == "NONE" || plan.occupancy == "OCCUPIED") {
    return absl::OkStatus();
  }
  return FailedPreconditionError("ROOM_NOT_OCCUPIED",
                                 absl::StrCat("room ", room, " is ", plan.occupancy, ": ", *plan.service_request,
                                              " is a guest's request and needs the room OCCUPIED"));
}

std::optional<hotel::v1::HousekeepingOverview::WorkItem::Type> WorkItemType(absl::string_view condition,
                                                                            absl::string_view occupancy,
                                                                            bool inspection_required) {
  using WorkItem = hotel::v1::HousekeepingOverview::WorkItem;
  if (condition == "DIRTY") return occupancy == "OCCUPIED" ? WorkItem::STAYOVER : WorkItem::DEPARTURE;
  if (condition == "CLEAN" && inspection_required) return WorkItem::INSPECT;
  return std::nullopt;
}

bool ServiceWithheld(absl::string_view service_request) {
  return service_request == "DO_NOT_DISTURB" || service_request == "SERVICE_DECLINED";
}

hotel::v1::HousekeepingPolicy DefaultPolicy(absl::string_view property_id) {
  hotel::v1::HousekeepingPolicy policy;
  policy.set_property_id(std::string(property_id));
  policy.set_checkout_condition(hotel::v1::HousekeepingPolicy::DIRTY);
  policy.set_occupied_nightly_condition(hotel::v1::HousekeepingPolicy::DIRTY);
  policy.set_vacant_nightly_downgrade(hotel::v1::HousekeepingPolicy::NONE);
  policy.set_vacant_dirty_after_days(0);
  policy.set_inspection_required(true);
  return policy;
}

absl::StatusOr<api::UpdatePlan<hotel::v1::HousekeepingPolicy>> PlanPolicyUpdate(
    const hotel::v1::HousekeepingPolicy& current, const hotel::v1::HousekeepingPolicy& patch,
    const std::vector<std::string>& mask, absl::string_view if_match) {
  using hotel::v1::HousekeepingPolicy;
  static const std::set<std::string> kUpdatable = {"checkout_condition", "occupied_nightly_condition",
                                                   "vacant_nightly_downgrade", "vacant_dirty_after_days",
                                                   "inspection_required"};
  return api::PlanUpdate(
      current, patch, mask, kUpdatable, {}, if_match, "housekeeping policy",
      [](HousekeepingPolicy& p, const std::set<std::string>& fields, FieldErrors& errors) {
        auto named = [&](const char* field) { return fields.count(field) > 0; };
        if (named("checkout_condition")) {
          api::RequiredEnumField<HousekeepingPolicy::ConditionRule>("checkout_condition", p.checkout_condition(),
                                                                    errors);
        }
        if (named("occupied_nightly_condition")) {
          api::RequiredEnumField<HousekeepingPolicy::ConditionRule>("occupied_nightly_condition",
                                                                    p.occupied_nightly_condition(), errors);
        }
        if (named("vacant_nightly_downgrade")) {
          api::RequiredEnumField<HousekeepingPolicy::VacantDowngrade>("vacant_nightly_downgrade",
                                                                      p.vacant_nightly_downgrade(), errors);
        }
        if (named("vacant_dirty_after_days") &&
            (p.vacant_dirty_after_days() < 0 || p.vacant_dirty_after_days() > kMaxVacantDirtyAfterDays)) {
          errors.Add("vacant_dirty_after_days", absl::StrCat("must be 0 (off) to ", kMaxVacantDirtyAfterDays,
                                                             " days, not ", p.vacant_dirty_after_days()));
        }
      });
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
