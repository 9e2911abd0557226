#include "stats/stats_repository.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/errors.h"
#include "db/existence.h"
#include "db/sql.h"
#include "db/timestamps.h"
#include "equipment/equipment_repository.h"
#include "issues/issue_repository.h"
#include "rooms/room_repository.h"
#include "schedules/schedule_repository.h"

namespace hotel::stats {
namespace {

using hotel::v1::Equipment;
using hotel::v1::Issue;
using Snapshot = pqxx::transaction<pqxx::repeatable_read, pqxx::read_only>;

constexpr int kRecentHistory = 10;
constexpr int kMaxOverviewRows = 500;

// The start of a figures request: NOT_FOUND for an unknown property (empty: all properties), then
// every later statement planned for its parameters (PlanEachCall).
absl::Status BeginFigures(db::Session& session, pqxx::transaction_base& txn, const std::string& property_id) {
  if (!property_id.empty()) {
    if (auto s = db::CheckPropertyExists(session, txn, property_id); !s.ok()) return s;
  }
  session.Exec(txn, PlanEachCall());
  return absl::OkStatus();
}

}  // namespace

absl::Status StatsRepository::RoomMaintenance(absl::string_view property_id, absl::string_view number,
                                              hotel::v1::RoomMaintenance* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    Snapshot txn(session.connection());
    if (auto s = db::CheckRoomExists(session, txn, property_id, number); !s.ok()) return s;
    if (auto s = rooms::ReadRoomRecord(session, txn, property_id, number, out->mutable_room()); !s.ok()) return s;

    equipment::ReadRoomEquipment(session, txn, property_id, number, kMaxOverviewRows, out->mutable_equipment());
    out->set_overdue_schedule_count(schedules::ReadRoomActiveSchedules(session, txn, property_id, number,
                                                                       kMaxOverviewRows, out->mutable_schedules()));
    issues::ReadRoomIssues(session, txn, property_id, number, /*open=*/true, kMaxOverviewRows,
                           out->mutable_open_issues());
    schedules::ReadRoomRecentCompletions(session, txn, property_id, number, kRecentHistory,
                                         out->mutable_recent_completions());
    issues::ReadRoomIssues(session, txn, property_id, number, /*open=*/false, kRecentHistory,
                           out->mutable_recent_issues());
    return absl::OkStatus();
  });
}

absl::Status StatsRepository::IssueStats(const IssueStatsQuery& query, hotel::v1::IssueStats* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    Snapshot txn(session.connection());
    if (auto s = BeginFigures(session, txn, query.property_id); !s.ok()) return s;
    // Rollups for all time and for the whole days of a window; issues only for partial days.
    std::vector<IssueGroup> groups;
    for (const auto& row : session.Exec(txn, BuildIssueGroupsSql(query))) groups.push_back(ReadIssueGroup(row));
    IssueStatsFromGroups(groups, out);
    auto clock = session.Exec(txn, BuildOpenIssueClockSql(query));
    namespace clock_col = open_issue_clock_columns;
    out->set_overdue_count(OverdueFromClock(query, clock[0][clock_col::kCount].as<int32_t>(), out->open_count()));
    out->set_max_open_age_seconds(clock[0][clock_col::kMaxOpenAgeSeconds].as<double>());
    db::SetMicros(clock[0][clock_col::kNowMicros].as<int64_t>(), out->mutable_computed_at());
    std::vector<HistogramBucket> resolve, response;
    for (const auto& row : session.Exec(txn, BuildDurationHistogramSql(query))) {
      HistogramBucket b{row[histogram_columns::kBucket].as<int>(), row[histogram_columns::kIssues].as<int64_t>()};
      (std::string_view(row[histogram_columns::kKind].c_str()) == "resolve" ? resolve : response).push_back(b);
    }
    out->set_median_time_to_resolve_seconds(HistogramMedian(resolve));
    out->set_median_time_to_first_response_seconds(HistogramMedian(response));
    return absl::OkStatus();
  });
}

absl::Status StatsRepository::Summary(const SummaryQuery& query, hotel::v1::Summary* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    Snapshot txn(session.connection());
    if (auto s = BeginFigures(session, txn, query.property_id); !s.ok()) return s;
    auto totals = session.Exec(txn, BuildSummaryTotalsSql(query));
    const auto& t = totals[0];
    out->set_properties(t[summary_columns::kProperties].as<int>());
    out->set_enabled_properties(t[summary_columns::kEnabledProperties].as<int>());
    out->set_room_types(t[summary_columns::kRoomTypes].as<int>());
    auto* rooms = out->mutable_rooms();
    rooms->set_total(t[summary_columns::kRooms].as<int>());
    rooms->set_out_of_order(t[summary_columns::kRoomsOutOfOrder].as<int>());
    rooms->set_available(rooms->total() - rooms->out_of_order());
    out->mutable_equipment()->set_total(t[summary_columns::kEquipment].as<int>());
    auto* schedules = out->mutable_schedules();
    schedules->set_active(t[summary_columns::kActiveSchedules].as<int>());
    schedules->set_overdue(t[summary_columns::kOverdueSchedules].as<int>());
    schedules->set_due_this_week(t[summary_columns::kSchedulesDueThisWeek].as<int>());
    auto* issues = out->mutable_issues();
    issues->set_open(t[summary_columns::kOpenIssues].as<int>());
    issues->set_overdue(t[summary_columns::kOverdueIssues].as<int>());
    db::SetMicros(t[summary_columns::kNowMicros].as<int64_t>(), out->mutable_computed_at());

    ZeroFill(Equipment::Status_descriptor(), out->mutable_equipment()->mutable_by_status());
    ZeroFill(Issue::Priority_descriptor(), issues->mutable_open_by_priority());
    ZeroFill(hotel::v1::RoomHousekeeping::Condition_descriptor(), rooms->mutable_by_condition());
    for (const auto& row : session.Exec(txn, BuildSummaryBreakdownSql(query))) {
      const std::string dimension = row[breakdown_columns::kDimension].c_str();
      const std::string key = row[breakdown_columns::kKey].c_str();
      const int count = row[breakdown_columns::kCount].as<int>();
      if (dimension == "category") {
        (*rooms->mutable_by_category())[key] = count;
      } else if (dimension == "floor") {
        int floor = 0;
        if (absl::SimpleAtoi(key, &floor)) (*rooms->mutable_by_floor())[floor] = count;
      } else if (dimension == "condition") {
        (*rooms->mutable_by_condition())[key] = count;
      } else if (dimension == "equipment") {
        (*out->mutable_equipment()->mutable_by_status())[key] = count;
      } else {
        (*issues->mutable_open_by_priority())[key] = count;
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace hotel::stats
