#include "housekeeping/day_turn.h"

#include <string>
#include <utility>

#include "sql/housekeeping.h"

namespace hotel::housekeeping {

HousekeepingDayTurn::HousekeepingDayTurn(db::ConnectionPool& pool, absl::Duration interval, std::function<bool()> ready)
    : db::DailyPass(pool, std::string(sql::housekeeping::kApplyDayTurn), "housekeeping day turn failed",
                    {"hotel_server_housekeeping_day_turn_passes_total",
                     "Runs of the housekeeping day turn by this replica, by result: ok (idle ones included), "
                     "failed (the next run applies what it did not).",
                     "hotel_server_housekeeping_day_turn_rooms_changed_total",
                     "Rooms whose condition this replica's housekeeping day turn changed; summed over the "
                     "replicas, each change counts once."},
                    interval, std::move(ready)) {}

}  // namespace hotel::housekeeping
