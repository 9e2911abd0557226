#include "db/daily_pass.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace hotel::db {

DailyPass::DailyPass(ConnectionPool& pool, std::string statement, std::string failure_message, DailyPassMetrics metrics,
                     absl::Duration interval, std::function<bool()> ready)
    : pool_(pool),
      statement_(std::move(statement)),
      metrics_(std::move(metrics)),
      task_(std::move(failure_message), interval, std::move(ready), [this] {
        auto changed = ApplyOnce(absl::Now());
        if (changed.ok()) rooms_changed_.fetch_add(*changed, std::memory_order_relaxed);
        (changed.ok() ? passes_ : failed_passes_).fetch_add(1, std::memory_order_relaxed);
        return changed.status();
      }) {}

absl::StatusOr<int64_t> DailyPass::ApplyOnce(absl::Time at) {
  int64_t changed = 0;
  // kRead: the pass is one transaction, so running it again on a fresh connection is safe.
  absl::Status status = pool_.Run(Access::kRead, [&](Session& session) {
    pqxx::work txn(session.connection());
    changed = session.Exec(txn, {statement_, {absl::StrCat(absl::ToUnixMicros(at))}})[0]["changed"].as<int64_t>();
    txn.commit();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return changed;
}

void DailyPass::RegisterMetrics(MetricRegistry& metrics) const {
  metrics.AddFamily(metrics_.passes_name, metrics_.passes_help, "counter", [this] {
    return MetricRegistry::Samples{
        {"result=\"ok\"", static_cast<double>(passes_.load(std::memory_order_relaxed))},
        {"result=\"failed\"", static_cast<double>(failed_passes_.load(std::memory_order_relaxed))}};
  });
  metrics.AddFamily(metrics_.rooms_changed_name, metrics_.rooms_changed_help, "counter", [this] {
    return MetricRegistry::Samples{{"", static_cast<double>(rooms_changed_.load(std::memory_order_relaxed))}};
  });
}

}  // namespace hotel::db
