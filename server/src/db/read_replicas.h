// Reads served by streaming replicas (DATABASE_READ_URL), never older than their caller may see
// (docs/consistency.md). The one place that decides where a read goes: the request pool hands it
// every read of a read call (PoolOptions::read_elsewhere); nothing else chooses.
//
// A replica serves a read once it has replayed the primary's WAL up to a floor, the highest of:
// - the caller's consistency token (the commit position of its last write): read-your-writes;
// - the change feed's position, for a call whose answer carries a change cursor (a list): the
//   replica must hold every change up to it (else watching after it would miss what the list left out);
// - the primary's position max_lag ago: bounded staleness.
// The primary's position is sampled by the change hub's polls (AddSample: the log's head and the
// WAL position read in the same statement), so the samples cost the primary no work of their own.
// A session remembers how far its replica had replayed; below the floor it asks again (one round
// trip on the replica), waits up to token_wait for it to get there, and otherwise the read goes to
// the primary. A replica behind by more than max_lag (a read finds it so, or the check every
// check_interval does) is taken out until the check finds it caught up, and so is one that is down,
// or is a primary. A replica failing a read (gone, a recovery conflict) costs a read on another
// replica or the primary, never an error.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/call_context.h"
#include "common/config.h"
#include "common/metric_registry.h"
#include "db/pool.h"

namespace hotel::db {

struct ReadReplicaOptions {
  std::string url;       // DATABASE_READ_URL: one replica, or a multi-host URL (a pool per host)
  PoolOptions replicas;  // each replica's pool (its url is set from url)
  absl::Duration max_lag = absl::Seconds(1);
  absl::Duration token_wait = absl::Milliseconds(100);
  absl::Duration check_interval = absl::Milliseconds(200);

  // DATABASE_READ_URL and READ_*: a read waits no longer than read_token_wait for a replica's
  // connection either; then the primary serves it.
  static ReadReplicaOptions FromConfig(const Config& config);
};

struct ReplicaStats {
  std::string name;  // host:port
  bool serving = false;
  double lag_seconds = 0;  // as last checked
  int64_t reads = 0;       // reads it served
};

struct ReadStats {
  std::vector<ReplicaStats> replicas;
  int64_t primary_reads = 0;  // reads of read calls that went to the primary (no replica recent enough)
};

// A libpq URL naming several hosts, one URL per host (target_session_attrs dropped); any other
// form as it is.
std::vector<std::string> SplitHosts(const std::string& url);

class ReadReplicas {
 public:
  explicit ReadReplicas(ReadReplicaOptions options);
  ~ReadReplicas();
  ReadReplicas(const ReadReplicas&) = delete;
  ReadReplicas& operator=(const ReadReplicas&) = delete;

  void Start();  // the checker's thread
  void Stop();

  // The primary's position: every change up to feed_position had committed at or before the WAL
  // position wal. Called by the change hub after each poll (about every 5 to 20 ms); none for
  // max_lag (the primary unreachable, the hub stalled): reads go to the primary.
  void AddSample(int64_t feed_position, uint64_t wal);

  // Runs work on a replica recent enough for call; nullopt when it was not run there
  // (no call, a write call, no replica recent enough in time, replicas failing): the primary then.
  std::optional<absl::Status> Run(const CallContext* call, const std::function<absl::Status(Session&)>& work);

  ReadStats Stats() const;
  // Each replica's lag and whether it serves, and where reads of read calls went.
  void RegisterMetrics(MetricRegistry& metrics);

 private:
  struct Replica {
    std::string name;
    std::unique_ptr<ConnectionPool> pool;
    bool serving = false;
    double lag_seconds = 0;
    int64_t reads = 0;
    absl::Time next_check = absl::InfinitePast();
    absl::Duration backoff;
  };
  struct Sample {
    absl::Time at;
    int64_t feed_position;  // the hub's, read before the WAL position
    uint64_t wal;           // the primary's write position
  };
  struct Floor {
    uint64_t fresh;     // bounded staleness: a replica below it is lagging
    uint64_t required;  // what this read needs (token, change feed, staleness)
  };
  enum class Outcome { kServed, kTooOld, kFailed };

  void Check(Replica& replica);
  std::optional<Floor> FloorOf(absl::Time now, const Consistency& call) const;
  double LagSeconds(uint64_t replayed, absl::Time now) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Outcome TryOn(Replica& replica, const Consistency& call, absl::Time give_up,
                const std::function<absl::Status(Session&)>& work, absl::Status* status);

  const ReadReplicaOptions options_;
  std::vector<Replica> replicas_;  // the list is fixed; its fields are guarded by mu_
  mutable absl::Mutex mu_;
  std::deque<Sample> samples_ ABSL_GUARDED_BY(mu_);  // oldest first
  size_t next_ ABSL_GUARDED_BY(mu_) = 0;             // round robin
  int64_t primary_reads_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Notification stop_;
  std::thread checker_;
};

}  // namespace hotel::db
