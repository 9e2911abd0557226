// Validation of ListChanges and WatchChanges requests into a ChangeQuery (pure, unit-tested).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hotel/v1/changes.pb.h"

namespace hotel::changes {

// Which changes a reader wants: any of resource_types (empty: all), within property_id ("" : all).
struct ChangeFilter {
  std::vector<std::string> resource_types;  // enum names, as change_log stores them
  std::string property_id;

  bool Matches(absl::string_view resource_type, absl::string_view property) const;
};

struct ChangeQuery {
  std::optional<int64_t> after;  // nullopt: from the oldest kept (list) or from now (watch)
  ChangeFilter filter;
  int page_size = 0;  // lists only
  bool full = false;  // view FULL: with the stored record
};

absl::StatusOr<ChangeQuery> ParseListChanges(const hotel::v1::ListChangesRequest& request);
absl::StatusOr<ChangeQuery> ParseWatchChanges(const hotel::v1::WatchChangesRequest& request);

// FAILED_PRECONDITION CURSOR_EXPIRED when changes after `after` were pruned already (those up to
// pruned_through are gone), or when the log never handed `after` out (known false: a cursor from
// before the database was restored to an earlier point, or from another deployment). Both mean
// the same to a consumer: list again.
absl::Status CheckCursorKept(int64_t after, int64_t pruned_through, bool known = true);

}  // namespace hotel::changes
