// Validation of ListChanges and WatchChanges requests into a ChangeQuery (pure, unit-tested).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "api/identifiers.h"
#include "api/request_fields.h"
#include "common/errors.h"
#include "hotel/v1/changes.pb.h"

namespace hotel::changes {

// What a ROOM change changed (1.5.0, Change.RoomChanges): its data, its housekeeping (a
// housekeeping_* field), or both. A creation or deletion is of the room's data.
struct RoomChangeParts {
  bool data = true;
  bool housekeeping = false;
};
RoomChangeParts RoomChangePartsOf(absl::string_view kind, const std::vector<std::string>& changed_fields);

// Which changes a reader wants: any of resource_types (empty: all), within property_id ("" : all),
// and of ROOM changes those of room_changes's part ("": all, as in 1.4; ROOM_DATA, HOUSEKEEPING).
struct ChangeFilter {
  std::vector<std::string> resource_types;  // enum names, as change_log stores them
  std::string property_id;
  std::string room_changes;  // a Change.RoomChanges name, "" for every ROOM change

  // room_parts: what the change changed when it is a ROOM change.
  bool Matches(absl::string_view resource_type, absl::string_view property,
               const RoomChangeParts& room_parts = {}) const;
};

struct ChangeQuery {
  std::optional<int64_t> after;  // nullopt: from the oldest kept (list) or from now (watch)
  ChangeFilter filter;
  int page_size = 0;  // lists only
  // BASIC, FULL (with the stored record) or DIFF (with the values before and after): how each
  // change is shown (change_sql.h, ToChangeProto). Never UNSPECIFIED.
  hotel::v1::ChangeView view = hotel::v1::CHANGE_VIEW_BASIC;
};

// The filter (resource_type, property_id, room_changes) and view of a request or message that has those fields
// (the feed's requests, a webhook subscription): a violation per bad field. Returns the view,
// BASIC when unspecified (or invalid: then errors names it).
template <typename Message>
hotel::v1::ChangeView ReadChangeSelection(const Message& message, ChangeFilter& filter, FieldErrors& errors) {
  for (int type : message.resource_type()) {
    if (auto name = api::EnumField<hotel::v1::Change::ResourceType>("resource_type", type, errors)) {
      auto& types = filter.resource_types;
      if (std::find(types.begin(), types.end(), *name) == types.end()) types.push_back(*name);
    }
  }
  if (!message.property_id().empty()) {
    api::Collect(api::ValidatePropertyId("property_id", message.property_id()), errors);
    filter.property_id = message.property_id();
  }
  if (auto name = api::EnumField<hotel::v1::Change::RoomChanges>("room_changes", message.room_changes(), errors)) {
    filter.room_changes = *name;
  }
  if (!hotel::v1::ChangeView_IsValid(message.view())) {
    errors.Add("view", "must be one of CHANGE_VIEW_BASIC, CHANGE_VIEW_FULL, CHANGE_VIEW_DIFF");
    return hotel::v1::CHANGE_VIEW_BASIC;
  }
  return message.view() == hotel::v1::CHANGE_VIEW_UNSPECIFIED ? hotel::v1::CHANGE_VIEW_BASIC : message.view();
}

// errors as a status; a malformed cursor (`after`) alone keeps its own reason, INVALID_CURSOR.
absl::Status SelectionErrors(const FieldErrors& errors);

absl::StatusOr<ChangeQuery> ParseListChanges(const hotel::v1::ListChangesRequest& request);
absl::StatusOr<ChangeQuery> ParseWatchChanges(const hotel::v1::WatchChangesRequest& request);

// FAILED_PRECONDITION CURSOR_EXPIRED when changes after `after` were pruned already (those up to
// pruned_through are gone), or when the log never handed `after` out (known false: a cursor from
// before the database was restored to an earlier point, or from another deployment). Both mean
// the same to a consumer: list again.
absl::Status CheckCursorKept(int64_t after, int64_t pruned_through, bool known = true);

}  // namespace hotel::changes
