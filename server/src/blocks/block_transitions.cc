#include "blocks/block_transitions.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "sql/blocks.h"

namespace hotel::blocks {

absl::StatusOr<int64_t> RoomBlockTransitions::ApplyOnce(absl::Time at) {
  int64_t changed = 0;
  // kRead: the pass is one transaction, so running it again on a fresh connection is safe.
  absl::Status status = pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    changed = session
                  .Exec(txn, {std::string(sql::blocks::kApplyTransitions),
                              {absl::StrCat(absl::ToUnixMicros(at))}})[0]["changed"]
                  .as<int64_t>();
    txn.commit();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return changed;
}

void RoomBlockTransitions::RegisterMetrics(MetricRegistry& metrics) const {
  metrics.AddFamily(
      "hotel_server_room_block_passes_total",
      "Runs of the room blocks' daily pass by this replica, by result: ok (idle ones included), failed "
      "(the next run applies what it did not).",
      "counter", [this] {
        return MetricRegistry::Samples{
            {"result=\"ok\"", static_cast<double>(counts_.passes.load(std::memory_order_relaxed))},
            {"result=\"failed\"", static_cast<double>(counts_.failed_passes.load(std::memory_order_relaxed))}};
      });
  metrics.AddFamily("hotel_server_room_block_rooms_changed_total",
                    "Rooms whose availability this replica's daily pass flipped (a room block started or ended); "
                    "summed over the replicas, each start or end counts once.",
                    "counter", [this] {
                      return MetricRegistry::Samples{
                          {"", static_cast<double>(counts_.rooms_changed.load(std::memory_order_relaxed))}};
                    });
}

}  // namespace hotel::blocks
