#include "changes/change_request.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "api/identifiers.h"
#include "api/request_fields.h"
#include "common/change_cursor.h"
#include "common/errors.h"
#include "common/page_token.h"

namespace hotel::changes {
namespace {

using hotel::v1::Change;

// The stored fields of a room's housekeeping (migration 0020 and later); the SQL filter
// (room_change_wanted, migration 0028) says the same.
constexpr absl::string_view kHousekeepingFieldPrefix = "housekeeping_";

// The fields both requests share; errors collects every bad one.
template <typename Request>
ChangeQuery ParseCommon(const Request& request, absl::string_view after, FieldErrors& errors) {
  ChangeQuery query;
  if (!after.empty()) {
    auto position = DecodeChangeCursor("after", after);
    if (position.ok()) query.after = *position;
    api::Collect(position.status(), errors);
  }
  query.view = ReadChangeSelection(request, query.filter, errors);
  return query;
}

}  // namespace

absl::Status SelectionErrors(const FieldErrors& errors) {
  const auto fields = ViolatedFields(errors.ToStatus());
  const bool only_cursor = std::all_of(fields.begin(), fields.end(), [](const auto& f) { return f == "after"; });
  return errors.ToStatus(only_cursor ? "INVALID_CURSOR" : "INVALID_ARGUMENT");
}

RoomChangeParts RoomChangePartsOf(absl::string_view kind, const std::vector<std::string>& changed_fields) {
  if (kind != "UPDATED" || changed_fields.empty()) return {};
  RoomChangeParts parts{false, false};
  for (const std::string& field : changed_fields) {
    (absl::StartsWith(field, kHousekeepingFieldPrefix) ? parts.housekeeping : parts.data) = true;
  }
  return parts;
}

bool ChangeFilter::Matches(absl::string_view resource_type, absl::string_view property,
                           const RoomChangeParts& room_parts) const {
  if (!property_id.empty() && property != property_id) return false;
  if (resource_type == "ROOM" && !room_changes.empty() &&
      !(room_changes == "HOUSEKEEPING" ? room_parts.housekeeping : room_parts.data)) {
    return false;
  }
  if (resource_types.empty()) return true;
  return std::find(resource_types.begin(), resource_types.end(), resource_type) != resource_types.end();
}

absl::StatusOr<ChangeQuery> ParseListChanges(const hotel::v1::ListChangesRequest& request) {
  FieldErrors errors;
  ChangeQuery query = ParseCommon(request, request.after(), errors);
  auto size = EffectivePageSize(request.page_size());
  if (size.ok()) query.page_size = *size;
  api::Collect(size.status(), errors);
  if (!errors.empty()) return SelectionErrors(errors);
  return query;
}

absl::StatusOr<ChangeQuery> ParseWatchChanges(const hotel::v1::WatchChangesRequest& request) {
  FieldErrors errors;
  ChangeQuery query = ParseCommon(request, request.after(), errors);
  if (!errors.empty()) return SelectionErrors(errors);
  return query;
}

absl::Status CheckCursorKept(int64_t after, int64_t pruned_through, bool known) {
  if (after < pruned_through) {
    return FailedPreconditionError(
        "CURSOR_EXPIRED",
        "the cursor `after` is older than the change log keeps (its retention): list the resources again and "
        "watch or page changes from the list's change_cursor");
  }
  if (known) return absl::OkStatus();
  // The same reason as a pruned cursor: consumers already re-list on it (410).
  return FailedPreconditionError(
      "CURSOR_EXPIRED",
      "the cursor `after` is not one this change log handed out: the database was restored to an earlier point "
      "(the changes after it are gone) or the cursor is another deployment's; list the resources again and watch "
      "or page changes from the list's change_cursor");
}

}  // namespace hotel::changes
