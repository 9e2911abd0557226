#include "stats/stats_sql.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "api/identifiers.h"
#include "common/errors.h"
#include "db/timestamps.h"

namespace hotel::stats {
namespace {

constexpr absl::string_view kOpen = "i.status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD')";

// Seconds of an interval as float8: date_part, unlike extract, does not go through numeric.
std::string Seconds(absl::string_view interval) { return absl::StrCat("date_part('epoch', ", interval, ")"); }

}  // namespace

namespace {

constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;

int64_t FloorDay(int64_t micros) { return micros - ((micros % kMicrosPerDay) + kMicrosPerDay) % kMicrosPerDay; }

// "<keyword><column> = <placeholder>", or "" for all properties (no placeholder).
std::string PropertyFilter(absl::string_view keyword, absl::string_view column, const std::string& placeholder) {
  return placeholder.empty() ? std::string() : absl::StrCat(keyword, column, " = ", placeholder);
}

// "a <= column AND column < b" for the bounds that are set ("true" for none).
std::string RangeSql(db::SqlQuery& sql, absl::string_view column, std::optional<int64_t> from,
                     std::optional<int64_t> to, bool as_day) {
  auto bound = [&](int64_t micros) {
    std::string ts = db::TimestampFromMicrosSql(sql, micros);
    return as_day ? absl::StrCat("(", ts, " AT TIME ZONE 'UTC')::date") : ts;
  };
  std::vector<std::string> parts;
  if (from) parts.push_back(absl::StrCat(column, " >= ", bound(*from)));
  if (to) parts.push_back(absl::StrCat(column, " < ", bound(*to)));
  return parts.empty() ? "true" : absl::StrJoin(parts, " AND ");
}

// The issues a window reads one by one: its partial days (all of it without whole days).
std::string PartialDaysSql(db::SqlQuery& sql, const IssueStatsQuery& q, const WindowSplit& split) {
  if (!split.whole_days) return RangeSql(sql, "i.created_at", q.from_micros, q.to_micros, false);
  std::vector<std::string> parts;
  if (q.from_micros) {
    parts.push_back(
        absl::StrCat("(", RangeSql(sql, "i.created_at", q.from_micros, split.days_from_micros, false), ")"));
  }
  if (q.to_micros) {
    parts.push_back(absl::StrCat("(", RangeSql(sql, "i.created_at", split.days_to_micros, q.to_micros, false), ")"));
  }
  return parts.empty() ? "false" : absl::StrCat("(", absl::StrJoin(parts, " OR "), ")");
}

// A per-day rollup's rows and the rows its deltas not folded yet add (migration 0009), for a
// window to sum once: cheaper than its *_current view, which sums every day first.
std::string RollupWithDeltasSql(absl::string_view table, absl::string_view columns) {
  return absl::StrCat("(SELECT ", columns, " FROM ", table, " UNION ALL SELECT ", columns, " FROM ",
                      absl::StripSuffix(table, "s"), "_deltas) d");
}

constexpr absl::string_view kDayCounterColumns =
    "property_id, created_day, status, priority, category, issues, resolved, resolve_seconds, responded,"
    " response_seconds, created_epoch_sum";

// Open issues past resolve_by: whole UTC days before today from the due-day rollup, today's part
// counted exactly through the issues_open_due index (a day of issues at most).
std::string OverdueOpenIssuesSql(const std::string& property) {
  return absl::StrCat(
      "((SELECT coalesce(sum(d.issues), 0) FROM open_issue_due_days_current d",
      " WHERE d.due_day < (now() AT TIME ZONE 'UTC')::date", PropertyFilter(" AND ", "d.property_id", property),
      ") + (SELECT count(*) FROM issues i WHERE ", kOpen,
      " AND i.resolve_by >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AND i.resolve_by < now()",
      PropertyFilter(" AND ", "i.property_id", property), "))");
}

}  // namespace

bool IsAllTime(const IssueStatsQuery& q) { return !q.from_micros && !q.to_micros; }

WindowSplit SplitWindow(const IssueStatsQuery& q) {
  WindowSplit split;
  if (q.from_micros) {
    const int64_t floor = FloorDay(*q.from_micros);
    split.days_from_micros = floor == *q.from_micros ? floor : floor + kMicrosPerDay;
  }
  if (q.to_micros) split.days_to_micros = FloorDay(*q.to_micros);
  split.whole_days =
      !split.days_from_micros || !split.days_to_micros || *split.days_from_micros < *split.days_to_micros;
  return split;
}

db::SqlQuery BuildIssueGroupsSql(const IssueStatsQuery& q) {
  db::SqlQuery sql;
  const std::string property = q.property_id.empty() ? "" : sql.Bind(q.property_id);
  const std::string columns =
      "status, priority, category, property_id, issues::int, 0, resolved::int, resolve_seconds, responded::int,"
      " response_seconds, issues * date_part('epoch', now()) - created_epoch_sum, 0::float8";
  if (IsAllTime(q)) {
    sql.text = absl::StrCat("SELECT ", columns, " FROM issue_counters_current WHERE issues <> 0",
                            PropertyFilter(" AND ", "property_id", property));
    return sql;
  }
  const WindowSplit split = SplitWindow(q);
  std::string days = "false";
  if (split.whole_days) days = RangeSql(sql, "created_day", split.days_from_micros, split.days_to_micros, true);
  const std::string partial = PartialDaysSql(sql, q, split);
  sql.text = absl::StrCat(
      "SELECT ", columns, " FROM (SELECT status, priority, category, property_id, sum(issues) AS issues,",
      " sum(resolved) AS resolved, sum(resolve_seconds) AS resolve_seconds, sum(responded) AS responded,",
      " sum(response_seconds) AS response_seconds, sum(created_epoch_sum) AS created_epoch_sum FROM (",
      "SELECT status, priority, category, property_id, issues, resolved, resolve_seconds, responded, response_seconds,",
      " created_epoch_sum FROM ", RollupWithDeltasSql("issue_day_counters", kDayCounterColumns), " WHERE ", days,
      PropertyFilter(" AND ", "property_id", property),
      " UNION ALL SELECT i.status, i.priority, i.category, i.property_id, 1, (i.resolved_at IS NOT NULL)::int,",
      " coalesce(", Seconds("i.resolved_at - i.created_at"), ", 0), (i.first_response_at IS NOT NULL)::int,",
      " coalesce(", Seconds("i.first_response_at - i.created_at"), ", 0), ", Seconds("i.created_at"),
      " FROM issues i WHERE ", partial, PropertyFilter(" AND ", "i.property_id", property),
      ") u GROUP BY 1, 2, 3, 4) g WHERE issues <> 0");
  return sql;
}

db::SqlQuery BuildOpenIssueClockSql(const IssueStatsQuery& q) {
  db::SqlQuery sql;
  const std::string property = q.property_id.empty() ? "" : sql.Bind(q.property_id);
  const std::string now = "(extract(epoch FROM now()) * 1000000)::int8";
  if (IsAllTime(q)) {
    sql.text = absl::StrCat("SELECT ", OverdueOpenIssuesSql(property),
                            "::int, coalesce(date_part('epoch', now() - (SELECT min(i.created_at) FROM issues i WHERE ",
                            kOpen, PropertyFilter(" AND ", "i.property_id", property), ")), 0)::float8, ", now);
    return sql;
  }
  // A window: its open issues not yet due (index issues_open_due from now on: the issues within
  // their resolution target, few), and its oldest open issue (the first entry of index
  // issues_open_window in the window). Overdue = open (from the groups) - not yet due.
  const std::string window = RangeSql(sql, "i.created_at", q.from_micros, q.to_micros, false);
  const std::string only = PropertyFilter(" AND ", "i.property_id", property);
  sql.text = absl::StrCat("SELECT (SELECT count(*) FROM issues i WHERE ", kOpen, " AND i.resolve_by >= now() AND ",
                          window, only, ")::int, coalesce(date_part('epoch', now() - (SELECT min(i.created_at)",
                          " FROM issues i WHERE ", kOpen, " AND ", window, only, ")), 0)::float8, ", now);
  return sql;
}

int32_t OverdueFromClock(const IssueStatsQuery& q, int32_t clock_count, int32_t open_count) {
  return IsAllTime(q) ? clock_count : open_count - clock_count;
}

db::SqlQuery BuildDurationHistogramSql(const IssueStatsQuery& q) {
  db::SqlQuery sql;
  const std::string property = q.property_id.empty() ? "" : sql.Bind(q.property_id);
  if (IsAllTime(q)) {
    sql.text = absl::StrCat("SELECT kind, bucket, sum(issues)::int8 FROM issue_duration_buckets_current",
                            PropertyFilter(" WHERE ", "property_id", property),
                            " GROUP BY kind, bucket ORDER BY kind, bucket");
    return sql;
  }
  const WindowSplit split = SplitWindow(q);
  std::string days = "false";
  if (split.whole_days) days = RangeSql(sql, "created_day", split.days_from_micros, split.days_to_micros, true);
  const std::string partial = PartialDaysSql(sql, q, split);
  auto bucket = [](absl::string_view end) {
    return absl::StrCat("issue_duration_bucket(", Seconds(absl::StrCat(end, " - i.created_at")), ")");
  };
  sql.text = absl::StrCat(
      "SELECT kind, bucket, sum(issues)::int8 FROM (SELECT kind, bucket, issues FROM ",
      RollupWithDeltasSql("issue_day_duration_buckets", "property_id, created_day, kind, bucket, issues"), " WHERE ",
      days, PropertyFilter(" AND ", "property_id", property), " UNION ALL SELECT 'resolve', ", bucket("i.resolved_at"),
      ", 1 FROM issues i WHERE i.resolved_at IS NOT NULL AND ", partial,
      PropertyFilter(" AND ", "i.property_id", property), " UNION ALL SELECT 'response', ",
      bucket("i.first_response_at"), ", 1 FROM issues i WHERE i.first_response_at IS NOT NULL AND ", partial,
      PropertyFilter(" AND ", "i.property_id", property), ") h GROUP BY kind, bucket ORDER BY kind, bucket");
  return sql;
}

double HistogramMedian(const std::vector<HistogramBucket>& buckets) {
  int64_t total = 0;
  for (const auto& b : buckets) total += b.count;
  if (total <= 0) return 0;
  // The lower middle value for an even count, like a median rounded down to a bucket.
  const int64_t middle = (total + 1) / 2;
  int64_t seen = 0;
  for (const auto& b : buckets) {
    seen += b.count;
    if (seen >= middle) return std::exp((b.bucket + 0.5) / kDurationBucketsPerE) - 1;
  }
  return 0;
}

IssueGroup ReadIssueGroup(const pqxx::row& row) {
  namespace col = issue_group_columns;
  IssueGroup g;
  g.status = row[col::kStatus].c_str();
  g.priority = row[col::kPriority].c_str();
  g.category = row[col::kCategory].c_str();
  g.property_id = row[col::kPropertyId].c_str();
  g.count = row[col::kCount].as<int32_t>();
  g.past_resolve_by = row[col::kPastResolveBy].as<int32_t>();
  g.resolved = row[col::kResolved].as<int32_t>();
  g.resolve_seconds_sum = row[col::kResolveSecondsSum].as<double>();
  g.responded = row[col::kResponded].as<int32_t>();
  g.response_seconds_sum = row[col::kResponseSecondsSum].as<double>();
  g.age_seconds_sum = row[col::kAgeSecondsSum].as<double>();
  g.age_seconds_max = row[col::kAgeSecondsMax].as<double>();
  return g;
}

void IssueStatsFromGroups(const std::vector<IssueGroup>& groups, hotel::v1::IssueStats* out) {
  ZeroFill(hotel::v1::Issue::Status_descriptor(), out->mutable_by_status());
  ZeroFill(hotel::v1::Issue::Priority_descriptor(), out->mutable_by_priority());
  ZeroFill(hotel::v1::Issue::Category_descriptor(), out->mutable_by_category());
  ZeroFill(hotel::v1::Issue::Priority_descriptor(), out->mutable_open_by_priority());
  int64_t total = 0, open = 0, overdue = 0, resolved = 0, responded = 0;
  double resolve_sum = 0, response_sum = 0, age_sum = 0, age_max = 0;
  for (const auto& g : groups) {
    total += g.count;
    (*out->mutable_by_status())[g.status] += g.count;
    (*out->mutable_by_priority())[g.priority] += g.count;
    (*out->mutable_by_category())[g.category] += g.count;
    (*out->mutable_by_property())[g.property_id] += g.count;
    resolved += g.resolved;
    resolve_sum += g.resolve_seconds_sum;
    responded += g.responded;
    response_sum += g.response_seconds_sum;
    if (g.status == "OPEN" || g.status == "IN_PROGRESS" || g.status == "ON_HOLD") {
      open += g.count;
      overdue += g.past_resolve_by;
      (*out->mutable_open_by_priority())[g.priority] += g.count;
      age_sum += g.age_seconds_sum;
      age_max = std::max(age_max, g.age_seconds_max);
    }
  }
  out->set_total(static_cast<int32_t>(total));
  out->set_open_count(static_cast<int32_t>(open));
  out->set_overdue_count(static_cast<int32_t>(overdue));
  out->set_resolved_count(static_cast<int32_t>(resolved));
  out->set_mean_time_to_resolve_seconds(resolved > 0 ? resolve_sum / resolved : 0);
  out->set_responded_count(static_cast<int32_t>(responded));
  out->set_mean_time_to_first_response_seconds(responded > 0 ? response_sum / responded : 0);
  out->set_mean_open_age_seconds(open > 0 ? age_sum / open : 0);
  out->set_max_open_age_seconds(age_max);
}

void ZeroFill(const google::protobuf::EnumDescriptor* descriptor, google::protobuf::Map<std::string, int32_t>* counts) {
  for (int i = 0; i < descriptor->value_count(); ++i) {
    if (descriptor->value(i)->number() != 0) (*counts)[descriptor->value(i)->name()] += 0;
  }
}

db::SqlQuery BuildSummaryTotalsSql(const SummaryQuery& q) {
  db::SqlQuery sql;
  const std::string property = q.property_id.empty() ? "" : sql.Bind(q.property_id);
  // " AND <alias>.<column> = $1" when filtering by property.
  auto only = [&](absl::string_view column) {
    return property.empty() ? std::string() : absl::StrCat(" AND ", column, " = ", property);
  };
  const std::string today = "(now() AT TIME ZONE p.time_zone)::date";
  sql.text = absl::StrCat("SELECT (SELECT count(*) FROM properties p WHERE true", only("p.id"), ")::int,",
                          " (SELECT count(*) FROM properties p WHERE p.enabled", only("p.id"), ")::int,",
                          " (SELECT count(*) FROM room_types t WHERE t.retired_at IS NULL", only("t.property_id"),
                          ")::int,", " (SELECT count(*) FROM rooms r WHERE r.retired_at IS NULL", only("r.property_id"),
                          ")::int,", " (SELECT count(*) FROM rooms r WHERE r.out_of_order AND r.retired_at IS NULL",
                          only("r.property_id"), ")::int,", " (SELECT count(*) FROM equipment e WHERE true",
                          only("e.property_id"), ")::int,",
                          " (SELECT coalesce(sum(d.schedules), 0) FROM schedule_due_days_current d WHERE true",
                          only("d.property_id"), ")::int,",
                          " (SELECT coalesce(sum(d.schedules), 0) FROM schedule_due_days_current d JOIN properties p "
                          "ON p.id = d.property_id"
                          " WHERE d.due_day < ",
                          today, only("d.property_id"), ")::int,",
                          " (SELECT coalesce(sum(d.schedules), 0) FROM schedule_due_days_current d JOIN properties p "
                          "ON p.id = d.property_id"
                          " WHERE d.due_day BETWEEN ",
                          today, " AND ", today, " + 6", only("d.property_id"), ")::int,",
                          " (SELECT coalesce(sum(c.issues), 0) FROM issue_counters_current c WHERE c.status IN "
                          "('OPEN', 'IN_PROGRESS', 'ON_HOLD')",
                          only("c.property_id"), ")::int,", " ", OverdueOpenIssuesSql(property), "::int,",
                          " (extract(epoch FROM now()) * 1000000)::int8");
  return sql;
}

db::SqlQuery BuildSummaryBreakdownSql(const SummaryQuery& q) {
  db::SqlQuery sql;
  const std::string property = q.property_id.empty() ? "" : sql.Bind(q.property_id);
  auto where = [&](absl::string_view column) {
    return property.empty() ? std::string() : absl::StrCat(" WHERE ", column, " = ", property);
  };
  auto also = [&](absl::string_view column) {
    return property.empty() ? std::string() : absl::StrCat(" AND ", column, " = ", property);
  };
  sql.text = absl::StrCat(
      // Retired rooms are no longer part of the inventory (docs/room-data.md#retirement).
      "SELECT 'category', t.category, count(*)::int FROM rooms r JOIN room_types t ON t.id = r.room_type_id",
      " WHERE r.retired_at IS NULL", also("r.property_id"), " GROUP BY t.category",
      " UNION ALL SELECT 'floor', r.floor::text, count(*)::int FROM rooms r WHERE r.retired_at IS NULL",
      also("r.property_id"), " GROUP BY r.floor",
      " UNION ALL SELECT 'equipment', e.status, count(*)::int FROM equipment e", where("e.property_id"),
      " GROUP BY e.status",
      " UNION ALL SELECT 'open_priority', c.priority, sum(c.issues)::int FROM issue_counters_current c",
      " WHERE c.status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD')", also("c.property_id"), " GROUP BY c.priority");
  return sql;
}

}  // namespace hotel::stats
