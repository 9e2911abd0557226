#include "db/read_replicas.h"

#include <algorithm>

#include "common/call_context.h"
#include "common/log.h"
#include "sql/db.h"

namespace hotel::db {
namespace {

constexpr absl::Duration kRecheckInterval = absl::Milliseconds(2);

}  // namespace

ReadReplicas::ReadReplicas(ReadReplicaOptions options)
    : options_(std::move(options)), pool_(options_.replicas), primary_(options_.primary) {}

ReadReplicas::~ReadReplicas() { Stop(); }

void ReadReplicas::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void ReadReplicas::Stop() {
  if (!stop_.HasBeenNotified()) stop_.Notify();
  if (thread_.joinable()) thread_.join();
}

void ReadReplicas::Loop() {
  bool failing = false;
  do {
    // The hub's position first: every change up to it had committed before the WAL position is read.
    const int64_t feed = options_.feed_position ? options_.feed_position().value_or(0) : 0;
    int64_t wal = -1;
    absl::Status status = primary_.Run(Access::kRead, [&](Session& session) {
      pqxx::nontransaction txn(session.connection());
      wal = session.Exec(txn, SqlQuery{std::string(sql::db::kWalPosition), {}})[0][0].as<int64_t>();
      return absl::OkStatus();
    });
    if (status.ok() != !failing) {
      failing = !status.ok();
      if (failing) LogWarning("cannot sample the primary's WAL position", {{"error", std::string(status.message())}});
    }
    const absl::Time now = absl::Now();
    absl::MutexLock lock(&mu_);
    if (status.ok()) samples_.push_back({now, feed, static_cast<uint64_t>(wal)});
    // Kept: the samples within max_lag, and the newest one before it.
    while (samples_.size() > 1 && samples_[1].at < now - options_.max_lag) samples_.pop_front();
  } while (!stop_.WaitForNotificationWithTimeout(options_.sample_interval));
}

std::optional<uint64_t> ReadReplicas::Floor(absl::Time now) const {
  const CallContext* call = CurrentCall();
  const std::optional<int64_t> feed = options_.feed_position ? options_.feed_position() : std::nullopt;
  absl::MutexLock lock(&mu_);
  // Bounded staleness: the oldest sample taken within max_lag. None (the primary unreachable, the
  // sampler behind): unknown.
  auto recent = std::find_if(samples_.begin(), samples_.end(),
                             [&](const Sample& s) { return s.at >= now - options_.max_lag; });
  if (recent == samples_.end()) return std::nullopt;
  uint64_t floor = recent->wal;
  // The change feed's cursor: the oldest sample taken once the hub had seen its position.
  if (feed.has_value()) {
    auto covering =
        std::find_if(samples_.begin(), samples_.end(), [&](const Sample& s) { return s.feed_position >= *feed; });
    if (covering == samples_.end()) return std::nullopt;  // the next sample will tell
    floor = std::max(floor, covering->wal);
  }
  if (call != nullptr) floor = std::max(floor, call->consistency.read_after);
  return floor;
}

double ReadReplicas::LagSeconds(uint64_t replayed, absl::Time now) const {
  // Everything the primary had written when a sample was taken is on the replica if it replayed
  // that far: its lag is the age of the newest such sample (0 when it has the newest one).
  for (auto it = samples_.rbegin(); it != samples_.rend(); ++it) {
    if (it->wal <= replayed) return it == samples_.rbegin() ? 0.0 : absl::ToDoubleSeconds(now - it->at);
  }
  return samples_.empty() ? 0.0 : absl::ToDoubleSeconds(now - samples_.front().at);
}

std::optional<absl::Status> ReadReplicas::Run(const std::function<absl::Status(Session&)>& work) {
  if (CurrentCall() == nullptr) return std::nullopt;  // background work reads from the primary
  const absl::Time give_up = absl::Now() + options_.token_wait;
  bool served = false;
  bool on_primary = false;
  std::string replica;
  uint64_t replayed = 0;
  const absl::Status status = pool_.Run(Access::kRead, [&](Session& session) -> absl::Status {
    for (;;) {
      const absl::Time now = absl::Now();
      {
        pqxx::nontransaction txn(session.connection());
        const pqxx::row row = session.Exec(txn, SqlQuery{std::string(sql::db::kReplayPosition), {}})[0];
        on_primary = row[0].is_null();
        if (!on_primary) replayed = static_cast<uint64_t>(row[0].as<int64_t>());
        replica = row[1].c_str();
      }
      const std::optional<uint64_t> floor = Floor(now);
      // A read URL that reached the primary (prefer-standby with no standby up) reads the newest.
      if (on_primary || (floor.has_value() && replayed >= *floor)) {
        served = true;
        return work(session);
      }
      if (now + kRecheckInterval > give_up) return absl::OkStatus();  // the primary then
      absl::SleepFor(kRecheckInterval);
    }
  });
  // A replica that is down, or that cancelled the read for a conflict with recovery, is no
  // reason to fail a read the primary can answer.
  const bool answered =
      served && status.code() != absl::StatusCode::kUnavailable && status.code() != absl::StatusCode::kAborted;
  {
    absl::MutexLock lock(&mu_);
    if (!replica.empty() && !on_primary) lag_[replica] = LagSeconds(replayed, absl::Now());
    ++(answered ? served_by_replica_ : served_by_primary_);
  }
  if (!answered) return std::nullopt;
  return status;
}

ReplicaStats ReadReplicas::Stats() const {
  absl::MutexLock lock(&mu_);
  return {served_by_replica_, served_by_primary_, lag_};
}

}  // namespace hotel::db
