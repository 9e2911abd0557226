// Statistics and summary requests validated into queries. Pure, unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "hotel/v1/maintenance.pb.h"

namespace hotel::stats {

struct IssueStatsQuery {
  std::string property_id;
  std::optional<int64_t> from_micros;  // created_at >= from
  std::optional<int64_t> to_micros;    // created_at < to
};

// INVALID_ARGUMENT naming property_id, from or to (from must be before to).
absl::StatusOr<IssueStatsQuery> ParseIssueStats(const hotel::v1::GetIssueStatsRequest& request);

struct SummaryQuery {
  std::string property_id;  // "" for all
};

absl::StatusOr<SummaryQuery> ParseSummary(const hotel::v1::GetSummaryRequest& request);

}  // namespace hotel::stats
