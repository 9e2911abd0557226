#include "db/read_replicas.h"

#include <algorithm>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/call_context.h"
#include "common/errors.h"
#include "common/log.h"
#include "sql/db.h"

namespace hotel::db {

ReadReplicaOptions ReadReplicaOptions::FromConfig(const Config& config) {
  ReadReplicaOptions options;
  options.url = config.database_read_url;
  options.replicas = PoolOptions::FromConfig(config, config.pool_size);
  options.replicas.url.clear();
  options.replicas.acquire_timeout = config.read_token_wait;
  options.max_lag = config.read_max_lag;
  options.token_wait = config.read_token_wait;
  return options;
}

namespace {

MetricRegistry::Samples PerReplica(const ReadStats& stats, const char* label, double (*value)(const ReplicaStats&)) {
  MetricRegistry::Samples samples;
  for (const auto& replica : stats.replicas) {
    samples.emplace_back(absl::StrCat(label, "=\"", LabelValue(replica.name), "\""), value(replica));
  }
  return samples;
}

}  // namespace

void ReadReplicas::RegisterMetrics(MetricRegistry& metrics) {
  metrics.AddFamily(
      "hotel_server_replica_lag_seconds",
      "How far each replica of DATABASE_READ_URL is behind the primary, as last checked (one further "
      "behind than READ_MAX_LAG serves no reads).",
      "gauge", [this] { return PerReplica(Stats(), "replica", [](const ReplicaStats& r) { return r.lag_seconds; }); });
  metrics.AddFamily(
      "hotel_server_replica_serving",
      "Whether each replica of DATABASE_READ_URL serves reads (1) or is taken out (0: lagging, down, or "
      "a primary).",
      "gauge",
      [this] { return PerReplica(Stats(), "replica", [](const ReplicaStats& r) { return r.serving ? 1.0 : 0.0; }); });
  metrics.AddFamily("hotel_server_read_calls_reads_total",
                    "Reads of read calls by the database that served them: a replica, or the primary (no replica "
                    "recent enough within READ_TOKEN_WAIT, or none serving).",
                    "counter", [this] {
                      const ReadStats stats = Stats();
                      MetricRegistry::Samples samples =
                          PerReplica(stats, "served_by", [](const ReplicaStats& r) { return double(r.reads); });
                      samples.emplace_back("served_by=\"primary\"", static_cast<double>(stats.primary_reads));
                      return samples;
                    });
}
namespace {

constexpr absl::Duration kRecheckInterval = absl::Milliseconds(2);
constexpr absl::Duration kCheckerTick = absl::Milliseconds(10);  // how often the checker looks for a check due
constexpr absl::Duration kHistory = absl::Seconds(30);           // samples kept, for the lag of a replica far behind
constexpr absl::Duration kMaxBackoff = absl::Seconds(5);
constexpr uint64_t kCurrent = std::numeric_limits<uint64_t>::max();  // a primary has everything

// "host:port" of a one-host URL, for the metric's label.
std::string HostOf(const std::string& url) {
  absl::string_view rest = url;
  if (const size_t scheme = rest.find("://"); scheme != absl::string_view::npos) rest.remove_prefix(scheme + 3);
  if (const size_t at = rest.rfind('@', rest.find_first_of("/?")); at != absl::string_view::npos) {
    rest.remove_prefix(at + 1);
  }
  return std::string(rest.substr(0, rest.find_first_of("/?")));
}

}  // namespace

std::vector<std::string> SplitHosts(const std::string& url) {
  if (!absl::StartsWith(url, "postgres://") && !absl::StartsWith(url, "postgresql://")) return {url};
  const size_t authority = url.find("://") + 3;
  const size_t path = std::min(url.find_first_of("/?", authority), url.size());
  const size_t at = url.rfind('@', path);
  const size_t hosts_start = at == std::string::npos || at < authority ? authority : at + 1;
  const std::vector<std::string> hosts = absl::StrSplit(url.substr(hosts_start, path - hosts_start), ',');
  if (hosts.size() < 2) return {url};
  // The query without target_session_attrs: each URL names one host, whatever it is now.
  std::string tail = url.substr(path);
  if (const size_t question = tail.find('?'); question != std::string::npos) {
    std::vector<std::string> kept;
    for (absl::string_view option : absl::StrSplit(tail.substr(question + 1), '&')) {
      if (!absl::StartsWith(option, "target_session_attrs=")) kept.emplace_back(option);
    }
    tail = tail.substr(0, question) + (kept.empty() ? "" : "?" + absl::StrJoin(kept, "&"));
  }
  std::vector<std::string> urls;
  for (const std::string& host : hosts) urls.push_back(url.substr(0, hosts_start) + host + tail);
  return urls;
}

ReadReplicas::ReadReplicas(ReadReplicaOptions options) : options_(std::move(options)) {
  for (const std::string& url : SplitHosts(options_.url)) {
    PoolOptions pool = options_.replicas;
    pool.url = url;
    Replica replica;
    replica.name = HostOf(url);
    replica.pool = std::make_unique<ConnectionPool>(std::move(pool));
    replicas_.push_back(std::move(replica));
  }
}

ReadReplicas::~ReadReplicas() { Stop(); }

void ReadReplicas::Start() {
  // A thread of its own: a replica that does not answer (its connection attempt waits
  // DB_CONNECT_TIMEOUT) must hold back nothing else.
  checker_ = std::thread([this] {
    do {
      for (Replica& replica : replicas_) Check(replica);
    } while (!stop_.WaitForNotificationWithTimeout(kCheckerTick));
  });
}

void ReadReplicas::Stop() {
  if (!stop_.HasBeenNotified()) stop_.Notify();
  if (checker_.joinable()) checker_.join();
}

void ReadReplicas::AddSample(int64_t feed_position, uint64_t wal) {
  const absl::Time now = absl::Now();
  absl::MutexLock lock(&mu_);
  // Positions going back: another primary (a promoted standby goes on from where it had replayed,
  // a restore from its recovery point). The old samples would break the order the searches rely on.
  if (!samples_.empty() && (wal < samples_.back().wal || feed_position < samples_.back().feed_position)) {
    samples_.clear();
  }
  samples_.push_back({now, feed_position, wal});
  while (samples_.size() > 1 && samples_[1].at < now - std::max(kHistory, options_.max_lag)) samples_.pop_front();
}

void ReadReplicas::Check(Replica& replica) {
  const absl::Time now = absl::Now();
  {
    absl::MutexLock lock(&mu_);
    if (now < replica.next_check) return;
  }
  std::optional<uint64_t> replayed;
  const absl::Status status = replica.pool->Run(Access::kRead, [&](Session& session) {
    pqxx::nontransaction txn(session.connection());
    const pqxx::row row = session.Exec(txn, SqlQuery{std::string(sql::db::kReplayPosition), {}})[0];
    if (!row[0].is_null()) replayed = static_cast<uint64_t>(row[0].as<int64_t>());
    return absl::OkStatus();
  });
  absl::MutexLock lock(&mu_);
  const bool was_serving = replica.serving;
  if (status.ok() && replayed.has_value()) {
    replica.lag_seconds = LagSeconds(*replayed, absl::Now());
    replica.serving = replica.lag_seconds <= absl::ToDoubleSeconds(options_.max_lag);
  } else {
    replica.serving = false;  // down, or a primary now (its reads belong to the request pool)
  }
  // A replica that is down is tried less and less often (each try may log a failed connection).
  replica.backoff = status.ok() ? options_.check_interval
                                : std::min(kMaxBackoff, std::max(options_.check_interval, replica.backoff * 2));
  replica.next_check = now + replica.backoff;
  if (replica.serving != was_serving) {
    LogInfo(replica.serving ? "replica serves reads" : "replica taken out of reads",
            {{"replica", replica.name},
             {"reason", !status.ok()            ? std::string(status.message())
                        : !replayed.has_value() ? std::string("it is a primary")
                                                : absl::StrCat("lag ", replica.lag_seconds, " s")}});
  }
}

std::optional<ReadReplicas::Floor> ReadReplicas::FloorOf(absl::Time now, const Consistency& call) const {
  absl::MutexLock lock(&mu_);
  if (samples_.empty()) return std::nullopt;  // no poll of the hub yet
  // The hub samples before it publishes a position, so the newest sample's is at or past every
  // cursor a client has been given: the feed's position has one owner, the hub.
  const std::optional<int64_t> feed =
      call.up_to_change_cursor ? std::optional<int64_t>(samples_.back().feed_position) : std::nullopt;
  // Bounded staleness: the primary's position at the oldest sample within max_lag. None (the
  // primary unreachable, the sampler stalled): unknown.
  const auto recent = std::lower_bound(samples_.begin(), samples_.end(), now - options_.max_lag,
                                       [](const Sample& s, absl::Time t) { return s.at < t; });
  if (recent == samples_.end()) return std::nullopt;
  Floor floor{recent->wal, std::max(recent->wal, call.read_after)};
  if (feed.has_value()) {
    // The oldest sample taken once the hub had seen its position; none yet: the next one tells.
    const auto covering = std::lower_bound(samples_.begin(), samples_.end(), *feed,
                                           [](const Sample& s, int64_t f) { return s.feed_position < f; });
    floor.required = covering == samples_.end() ? kCurrent : std::max(floor.required, covering->wal);
  }
  return floor;
}

double ReadReplicas::LagSeconds(uint64_t replayed, absl::Time now) const {
  // The replica holds everything the primary had written at the newest sample at or below its
  // position: its lag is how long ago the next sample was taken (0 when it has the newest).
  const auto above = std::upper_bound(samples_.begin(), samples_.end(), replayed,
                                      [](uint64_t r, const Sample& s) { return r < s.wal; });
  if (above == samples_.end()) return 0;
  return absl::ToDoubleSeconds(now - above->at);
}

ReadReplicas::Outcome ReadReplicas::TryOn(Replica& replica, const Consistency& call, absl::Time give_up,
                                          const std::function<absl::Status(Session&)>& work, absl::Status* status) {
  Outcome outcome = Outcome::kFailed;
  *status = replica.pool->Run(Access::kRead, [&](Session& session) -> absl::Status {
    for (;;) {
      const absl::Time now = absl::Now();
      const std::optional<Floor> floor = FloorOf(now, call);
      if (!floor.has_value()) return absl::OkStatus();  // kFailed: the primary then
      if (session.replayed() < floor->required) {       // asked afresh, so the lag test below is too
        pqxx::nontransaction txn(session.connection());
        const pqxx::row row = session.Exec(txn, SqlQuery{std::string(sql::db::kReplayPosition), {}})[0];
        session.set_replayed(row[0].is_null() ? kCurrent : static_cast<uint64_t>(row[0].as<int64_t>()));
      }
      if (session.replayed() >= floor->required) {
        outcome = Outcome::kServed;
        return work(session);
      }
      if (session.replayed() < floor->fresh) {
        outcome = Outcome::kTooOld;  // lagging past max_lag: out until the check sees it caught up
        return absl::OkStatus();
      }
      if (now + kRecheckInterval > give_up) return absl::OkStatus();  // not in time: the primary
      absl::SleepFor(kRecheckInterval);
    }
  });
  const absl::StatusCode code = status->code();
  // The caller gone or out of time: no other database would answer in time either.
  if (code == absl::StatusCode::kCancelled || code == absl::StatusCode::kDeadlineExceeded) return Outcome::kServed;
  // A replica that went away, or cancelled the read for a conflict with recovery, is no reason to
  // fail a read another database can answer.
  if (code == absl::StatusCode::kUnavailable || code == absl::StatusCode::kAborted) return Outcome::kFailed;
  return outcome;
}

std::optional<absl::Status> ReadReplicas::Run(const CallContext* call,
                                              const std::function<absl::Status(Session&)>& work) {
  if (call == nullptr || !call->consistency.replica_reads || replicas_.empty()) return std::nullopt;
  const absl::Time give_up = absl::Now() + options_.token_wait;
  size_t first = 0;
  {
    absl::MutexLock lock(&mu_);
    first = next_++ % replicas_.size();
  }
  for (size_t i = 0; i < replicas_.size(); ++i) {
    Replica& replica = replicas_[(first + i) % replicas_.size()];
    {
      absl::MutexLock lock(&mu_);
      if (!replica.serving) continue;
    }
    absl::Status status;
    const Outcome outcome = TryOn(replica, call->consistency, give_up, work, &status);
    absl::MutexLock lock(&mu_);
    if (outcome == Outcome::kServed) {
      ++replica.reads;
      return status;
    }
    // Lagging, or gone (not merely busy: all its connections lent out is no reason to take it out).
    if (outcome == Outcome::kTooOld ||
        (status.code() == absl::StatusCode::kUnavailable && ErrorReason(status) != "DATABASE_POOL_EXHAUSTED")) {
      replica.serving = false;  // the next check decides when it serves again
      LogInfo("replica taken out of reads",
              {{"replica", replica.name},
               {"reason", outcome == Outcome::kTooOld ? std::string("lagging") : std::string(status.message())}});
      replica.next_check = absl::Now() + options_.check_interval;
      continue;
    }
    if (outcome == Outcome::kFailed && status.ok()) break;  // not in time: the primary, at once
  }
  absl::MutexLock lock(&mu_);
  ++primary_reads_;
  return std::nullopt;
}

ReadStats ReadReplicas::Stats() const {
  absl::MutexLock lock(&mu_);
  ReadStats stats;
  stats.primary_reads = primary_reads_;
  for (const Replica& replica : replicas_) {
    stats.replicas.push_back({replica.name, replica.serving, replica.lag_seconds, replica.reads});
  }
  return stats;
}

}  // namespace hotel::db
