// A bounded pool of PostgreSQL connections. Callers get a Session for the duration of one
// unit of work; database failures come back as absl::Status (UNAVAILABLE when the database
// cannot be reached) so handlers fail fast instead of hanging, and the pool heals itself
// once the database is back.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/call_context.h"
#include "common/config.h"
#include "db/sql.h"

namespace hotel::db {

class Session;

struct PoolOptions {
  std::string url;
  int size = 8;
  absl::Duration acquire_timeout = absl::Seconds(2);
  absl::Duration connect_timeout = absl::Seconds(2);
  absl::Duration statement_timeout = absl::Seconds(5);
  // Called after every Access::kWrite unit of work, once its transaction has ended (committed
  // or not): lets read caches drop what the write may have changed before the client hears back.
  std::function<void()> after_write;
  // A write that PostgreSQL aborts as a deadlock victim or serialization failure (40P01, 40001)
  // is run again, at most this many times in all, after a jittered back-off spent without a
  // connection. When the attempts run out the caller gets ABORTED CONCURRENT_UPDATE.
  int conflict_attempts = 5;
  absl::Duration conflict_backoff = absl::Milliseconds(2);
  // Where a read call's reads go first (db/read_replicas.h: a replica recent enough, for the call
  // given); nullopt from it means "not served there", and the read runs on this pool.
  std::function<std::optional<absl::Status>(const CallContext*, const std::function<absl::Status(Session&)>&)>
      read_elsewhere;
  // After a call's write, the WAL position of its commit is reported to the call's CallWrites
  // (common/call_context.h), for its consistency token.
  bool record_commit_position = false;

  // DATABASE_URL and DB_*, for a pool of size connections.
  static PoolOptions FromConfig(const Config& config, int size);
};

// While one is in scope, this thread's reads run on the primary whatever the call: a cache fill
// must store nothing older than the invalidations it has seen.
class PrimaryReads {
 public:
  PrimaryReads();
  ~PrimaryReads();
  PrimaryReads(const PrimaryReads&) = delete;
  PrimaryReads& operator=(const PrimaryReads&) = delete;
  static bool Active();

 private:
  const bool previous_;
};

// One connection and the statements already prepared on it.
class Session {
 public:
  // statement_timeout: what the connection's statement_timeout was set to when it opened.
  explicit Session(std::unique_ptr<pqxx::connection> connection,
                   absl::Duration statement_timeout = absl::InfiniteDuration());
  pqxx::connection& connection() { return *connection_; }
  // The call the session's unit of work serves (nullptr: none), handed over by ConnectionPool::Run
  // before the work runs and taken back after it: Exec and Commit keep to its budget, and a write
  // records its trace id.
  void Serve(const CallContext* call) { call_ = call; }
  // Runs query as a prepared statement, preparing it on first use on this connection. For a call
  // (Serve) it first checks that the caller still waits and has time left, and shortens
  // statement_timeout to that time, so no statement outlives the deadline. After
  // SendTraceWithNextStatement it first sets hotel.trace_id on the connection to the call's trace
  // id (common/trace_context.h), for the change log. Within a sampled trace it is a span named
  // after the statement (common/tracing.h), never its values.
  pqxx::result Exec(pqxx::transaction_base& txn, const SqlQuery& query);
  // Commits txn unless the request was cancelled or is past its deadline (then nothing of it is
  // written: the transaction rolls back as the exception unwinds it).
  void Commit(pqxx::dbtransaction& txn);
  // The statement_timeout (and hotel.trace_id) in effect are unknown after a unit of work failed:
  // a SET inside a rolled-back transaction is undone. The next statement sets it again.
  void ForgetSessionSettings() {
    timeout_ms_ = -1;
    trace_may_be_set_ = true;
  }
  // ConnectionPool::Run calls it before each unit of work, true for writes: the transaction of
  // a write's first statement records the request's trace id.
  void SendTraceWithNextStatement(bool send) { trace_pending_ = send; }
  // The connection must not serve again (it reached a standby, say): closed when released.
  void Discard() { discarded_ = true; }
  bool discarded() const { return discarded_; }
  // On a replica: how far it had replayed the WAL when last asked (it only grows).
  uint64_t replayed() const { return replayed_; }
  void set_replayed(uint64_t position) { replayed_ = std::max(replayed_, position); }

 private:
  // "SET statement_timeout = N;" when the setting must change for the current request, else "".
  std::string StatementTimeSetting();
  // What must precede the next statement (statement_timeout, hotel.trace_id), in one round trip.
  void PrepareStatement(pqxx::transaction_base& txn);

  std::unique_ptr<pqxx::connection> connection_;
  const CallContext* call_ = nullptr;
  // Prepared statement → the statement's name (db/statement_names.h), for its trace span.
  absl::flat_hash_map<std::string, std::string> prepared_;
  const int64_t default_timeout_ms_;
  int64_t timeout_ms_;  // statement_timeout in effect on the connection, -1 when unknown
  bool trace_pending_ = false;
  bool trace_may_be_set_ = false;  // hotel.trace_id may hold a request's id
  bool discarded_ = false;
  uint64_t replayed_ = 0;
};

// Thrown by Session when the request it serves may not go on; ConnectionPool::Run returns status.
struct RequestBudgetExhausted {
  absl::Status status;
};

struct PoolStats {
  int size = 0;    // configured maximum
  int open = 0;    // connections open now
  int in_use = 0;  // connections lent out now
  int64_t acquired_total = 0;
  int64_t waited_total = 0;            // acquisitions that had to wait for a free connection
  double wait_seconds_total = 0;       // time spent in those waits
  int64_t conflict_retries_total = 0;  // writes run again after a deadlock or serialization failure
};

enum class Access {
  kRead,   // safe to retry once on a fresh connection if a pooled one turns out dead
  kWrite,  // retried only when PostgreSQL aborted it for a conflict (deadlock, serialization
           // failure), which rolled everything back; the work must fill its outputs afresh
};

class ConnectionPool {
 public:
  explicit ConnectionPool(PoolOptions options);
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // Runs work with a session, for the call this thread serves (CurrentCall, read here once and
  // handed to the session: its budget bounds the wait and every statement; a write's commit
  // position goes to CurrentCallWrites). Exceptions from libpqxx become statuses:
  // UNAVAILABLE for a lost or refused connection, DEADLINE_EXCEEDED for statement_timeout, ABORTED for serialization
  // failures and deadlocks (after the retries of conflict_attempts for writes), INTERNAL (message hidden from clients)
  // otherwise.
  absl::Status Run(Access access, const std::function<absl::Status(Session&)>& work);

  PoolStats Stats() const;
  // Closes idle connections, e.g. after the database was seen to restart.
  void DropIdle();
  // Opens connections until size are open, stopping at the first that fails (its status). The
  // health monitor fills the pool before the server reports ready and after an outage: opened
  // one per call instead, the first burst after a start pays for them all at once.
  absl::Status Fill();

 private:
  absl::StatusOr<std::unique_ptr<Session>> Acquire(const CallContext* call, bool* reused);
  absl::StatusOr<std::unique_ptr<Session>> AcquireBefore(bool* reused, absl::Time deadline);
  void Release(std::unique_ptr<Session> session, bool healthy);
  absl::StatusOr<std::unique_ptr<Session>> Connect();

  const PoolOptions options_;
  const std::string connection_string_;
  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<Session>> idle_ ABSL_GUARDED_BY(mu_);
  int open_ ABSL_GUARDED_BY(mu_) = 0;
  int in_use_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t acquired_total_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t waited_total_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t conflict_retries_total_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Duration wait_total_ ABSL_GUARDED_BY(mu_);
};

// Adds libpq's connect_timeout and TCP keepalive settings to url, each unless it has it already.
std::string WithConnectionDefaults(const std::string& url, absl::Duration connect_timeout);

// How a unit of work ended, beyond its status.
enum class Failure {
  kNone,
  kConnectionLost,  // the session is dead, or on a demoted primary; the others opened with it probably too
  kConflict,        // 40P01 or 40001: rolled back by PostgreSQL, safe to run again
};

// Maps a libpqxx exception (rethrown inside) to a status; used by Run, exposed for tests.
absl::Status StatusFromCurrentException(Failure* failure);

}  // namespace hotel::db
