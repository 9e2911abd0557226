// Read-only maintenance views: the room overview, issue statistics and the dashboard summary.
// Each reads one consistent snapshot (REPEATABLE READ, read only).
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "db/pool.h"
#include "hotel/v1/maintenance.pb.h"
#include "stats/stats_sql.h"

namespace hotel::stats {

class StatsRepository {
 public:
  explicit StatsRepository(db::ConnectionPool& pool) : pool_(pool) {}

  // NOT_FOUND PROPERTY_NOT_FOUND / ROOM_NOT_FOUND.
  absl::Status RoomMaintenance(absl::string_view property_id, absl::string_view number,
                               hotel::v1::RoomMaintenance* out);
  // NOT_FOUND PROPERTY_NOT_FOUND when property_id names no property.
  absl::Status IssueStats(const IssueStatsQuery& query, hotel::v1::IssueStats* out);
  absl::Status Summary(const SummaryQuery& query, hotel::v1::Summary* out);

 private:
  db::ConnectionPool& pool_;
};

}  // namespace hotel::stats
