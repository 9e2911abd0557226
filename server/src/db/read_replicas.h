// Reads served by streaming replicas (DATABASE_READ_URL), never older than the caller may see
// (docs/decisions.md, "Failover and replicas"). A read needs a replica that has replayed the WAL up
// to a floor, the highest of:
// - the caller's consistency token (the commit position of its last write): read-your-writes;
// - the change feed's: a list answers the hub's cursor, so the replica must hold every change up
//   to it (else watching after that cursor would miss what the list left out);
// - the primary's position max_lag ago: bounded staleness.
// The primary's position is sampled every sample_interval (with the hub's position at that moment).
// Each read checks its replica session's replay position first (one round trip), waits up to
// token_wait for it to get there, and otherwise returns "not served": the caller reads from the
// primary. A replica further behind than max_lag thus serves nothing until it catches up. The lag
// of every replica seen is kept for the metric.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "db/pool.h"

namespace hotel::db {

struct ReadReplicaOptions {
  PoolOptions replicas;  // DATABASE_READ_URL
  PoolOptions primary;   // one connection to the primary, for its WAL position
  absl::Duration max_lag = absl::Seconds(1);
  absl::Duration token_wait = absl::Milliseconds(100);
  absl::Duration sample_interval = absl::Milliseconds(10);
  // The change feed's position (the hub's), nullopt while unknown.
  std::function<std::optional<int64_t>()> feed_position;
};

struct ReplicaStats {
  int64_t served_by_replica = 0;
  int64_t served_by_primary = 0;  // no replica had replayed far enough in time, or none answered
  std::map<std::string, double> lag_seconds;  // by replica ("host:port" as the replica sees itself)
};

class ReadReplicas {
 public:
  explicit ReadReplicas(ReadReplicaOptions options);
  ~ReadReplicas();
  ReadReplicas(const ReadReplicas&) = delete;
  ReadReplicas& operator=(const ReadReplicas&) = delete;

  void Start();  // the sampler
  void Stop();

  // Runs work on a replica recent enough for the current call; nullopt when it was not run there
  // (outside a call, no replica recent enough within the wait, a replica failing): read from the
  // primary then. A read a replica aborted (a recovery conflict) or lost is not served either.
  std::optional<absl::Status> Run(const std::function<absl::Status(Session&)>& work);

  ReplicaStats Stats() const;
  ConnectionPool& pool() { return pool_; }  // the replicas' (for its metrics)

 private:
  struct Sample {
    absl::Time at;
    int64_t feed_position;  // the hub's, read before the WAL position
    uint64_t wal;           // the primary's write position
  };
  void Loop();
  // The WAL position the current call's read must find replayed; nullopt when it cannot be known.
  std::optional<uint64_t> Floor(absl::Time now) const;
  // The replica's lag behind the primary given its replay position.
  double LagSeconds(uint64_t replayed, absl::Time now) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ReadReplicaOptions options_;
  ConnectionPool pool_;
  ConnectionPool primary_;
  mutable absl::Mutex mu_;
  std::deque<Sample> samples_ ABSL_GUARDED_BY(mu_);  // oldest first, covering max_lag and a bit
  std::map<std::string, double> lag_ ABSL_GUARDED_BY(mu_);
  int64_t served_by_replica_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t served_by_primary_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace hotel::db
