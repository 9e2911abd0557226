#include "stats/stats_request.h"

#include "api/identifiers.h"
#include "common/errors.h"
#include "db/timestamps.h"

namespace hotel::stats {
namespace {

// 2000-01-01 .. 3000-01-01 in seconds.
constexpr int64_t kMinSeconds = 946684800;
constexpr int64_t kMaxSeconds = 32503680000;

std::optional<int64_t> WindowBound(const char* field, const google::protobuf::Timestamp& ts, FieldErrors& errors) {
  if (ts.seconds() < kMinSeconds || ts.seconds() > kMaxSeconds || ts.nanos() < 0 || ts.nanos() > 999999999) {
    errors.Add(field, "must be a time between 2000 and 3000 (RFC 3339)");
    return std::nullopt;
  }
  return db::ToMicros(ts);
}

}  // namespace

absl::StatusOr<IssueStatsQuery> ParseIssueStats(const hotel::v1::GetIssueStatsRequest& request) {
  FieldErrors errors;
  IssueStatsQuery query;
  if (!request.property_id().empty()) {
    for (auto& v : FieldViolations(api::ValidatePropertyId("property_id", request.property_id()))) {
      errors.Add(v.field, v.description);
    }
    query.property_id = request.property_id();
  }
  if (request.has_from()) query.from_micros = WindowBound("from", request.from(), errors);
  if (request.has_to()) query.to_micros = WindowBound("to", request.to(), errors);
  if (query.from_micros && query.to_micros && *query.from_micros >= *query.to_micros) {
    errors.Add("from", "must be before to");
  }
  if (!errors.empty()) return errors.ToStatus();
  return query;
}

absl::StatusOr<SummaryQuery> ParseSummary(const hotel::v1::GetSummaryRequest& request) {
  SummaryQuery query;
  if (!request.property_id().empty()) {
    if (auto s = api::ValidatePropertyId("property_id", request.property_id()); !s.ok()) return s;
    query.property_id = request.property_id();
  }
  return query;
}

}  // namespace hotel::stats
