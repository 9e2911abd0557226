// Room-data writes validated: a create into the record it creates, an update into a plan. The
// field checks are the same for the API and for hotel-admin's import. Pure, unit-tested.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "api/update_mask.h"
#include "common/errors.h"
#include "hotel/v1/rooms.pb.h"

namespace hotel::rooms {

// The stored fields of each resource: what a create or an import sets.
const std::set<std::string>& PropertyFields();
const std::set<std::string>& RoomTypeFields();
const std::set<std::string>& RoomFields();

// Validate the named fields of a record in place (trimmed, amenities sorted and de-duplicated),
// adding a violation per bad field. field_prefix goes before each field name ("rooms[3].").
void CheckPropertyFields(hotel::v1::Property& property, const std::set<std::string>& fields, FieldErrors& errors,
                         absl::string_view field_prefix = "");
void CheckRoomTypeFields(hotel::v1::RoomType& room_type, const std::set<std::string>& fields, FieldErrors& errors,
                         absl::string_view field_prefix = "");
void CheckRoomFields(hotel::v1::Room& room, const std::set<std::string>& fields, FieldErrors& errors,
                     absl::string_view field_prefix = "");

// A validated create: the record as it will be stored, and the idempotency key.
template <typename Resource>
struct NewRecord {
  Resource record;
  std::string actor;
  std::string request_id;
  std::string request_hash;  // fingerprint of the request, stored with request_id
};

absl::StatusOr<NewRecord<hotel::v1::Property>> ValidateCreateProperty(const hotel::v1::CreatePropertyRequest& request);
absl::StatusOr<NewRecord<hotel::v1::RoomType>> ValidateCreateRoomType(const hotel::v1::CreateRoomTypeRequest& request);
absl::StatusOr<NewRecord<hotel::v1::Room>> ValidateCreateRoom(const hotel::v1::CreateRoomRequest& request);

// A planned update (api::PlanUpdate), and what it means for the room data's integrity.
template <typename Resource>
struct UpdatePlan : api::UpdatePlan<Resource> {
  bool retiring = false;         // retired goes from false to true
  bool needs_room_type = false;  // a room's type changes or it returns from retirement
};

// Errors: INVALID_ARGUMENT naming each bad field (unknown mask paths name update_mask; id,
// property_id, code, number only with their current values), then ABORTED ETAG_MISMATCH for a
// stale etag (the body's or if_match).
absl::StatusOr<UpdatePlan<hotel::v1::Property>> PlanPropertyUpdate(const hotel::v1::Property& current,
                                                                   const hotel::v1::Property& patch,
                                                                   const std::vector<std::string>& mask,
                                                                   absl::string_view if_match);
absl::StatusOr<UpdatePlan<hotel::v1::RoomType>> PlanRoomTypeUpdate(const hotel::v1::RoomType& current,
                                                                   const hotel::v1::RoomType& patch,
                                                                   const std::vector<std::string>& mask,
                                                                   absl::string_view if_match);
absl::StatusOr<UpdatePlan<hotel::v1::Room>> PlanRoomUpdate(const hotel::v1::Room& current, const hotel::v1::Room& patch,
                                                           const std::vector<std::string>& mask,
                                                           absl::string_view if_match);

}  // namespace hotel::rooms
