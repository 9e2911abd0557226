#include "blocks/block_transitions.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/log.h"
#include "sql/blocks.h"

namespace hotel::blocks {

absl::StatusOr<int64_t> RoomBlockTransitions::ApplyOnce(absl::Time at) {
  int64_t changed = 0;
  // kRead: the pass is one transaction, so running it again on a fresh connection is safe.
  absl::Status status = pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    changed = session.Exec(txn, {std::string(sql::blocks::kApplyTransitions), {absl::StrCat(absl::ToUnixMicros(at))}})
                  [0]["changed"]
                      .as<int64_t>();
    txn.commit();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return changed;
}

void RoomBlockTransitions::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void RoomBlockTransitions::Stop() {
  if (!thread_.joinable()) return;
  if (!stop_.HasBeenNotified()) stop_.Notify();
  thread_.join();
}

void RoomBlockTransitions::Loop() {
  bool failing = false;
  while (!stop_.WaitForNotificationWithTimeout(interval_)) {
    if (ready_ && !ready_()) continue;
    auto changed = ApplyOnce(absl::Now());
    // The database being down is reported by the health monitor; one line here is enough.
    if (!changed.ok() && !failing) {
      LogWarning("room block transitions failed", {{"error", std::string(changed.status().message())}});
    }
    failing = !changed.ok();
  }
}

}  // namespace hotel::blocks
