#include "db/pool.h"

#include <algorithm>

#include "absl/random/distributions.h"
#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/call_context.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/page_token.h"
#include "common/tracing.h"
#include "db/statement_names.h"
#include "sql/db.h"

namespace hotel::db {

PoolOptions PoolOptions::FromConfig(const Config& config, int size) {
  PoolOptions options;
  options.url = config.database_url;
  options.size = size;
  options.acquire_timeout = config.pool_acquire_timeout;
  options.connect_timeout = config.connect_timeout;
  options.statement_timeout = config.statement_timeout;
  return options;
}

Session::Session(std::unique_ptr<pqxx::connection> connection, absl::Duration statement_timeout)
    : connection_(std::move(connection)),
      default_timeout_ms_(statement_timeout == absl::InfiniteDuration() ? 0
                                                                        : absl::ToInt64Milliseconds(statement_timeout)),
      timeout_ms_(default_timeout_ms_) {}

std::string Session::StatementTimeSetting() {
  if (default_timeout_ms_ <= 0) return "";  // not a pool's session: its timeout is not managed
  int64_t want = default_timeout_ms_;
  const absl::Duration left = RequestTimeLeft(call_);
  if (left < absl::Milliseconds(default_timeout_ms_)) want = std::max<int64_t>(1, absl::ToInt64Milliseconds(left));
  // The setting in effect may stay while it ends no later than the deadline and at most 100 ms
  // before it: most calls of a request (and of requests with similar deadlines) need no SET.
  if (timeout_ms_ >= 0 && timeout_ms_ <= want && timeout_ms_ >= want - 100) return "";
  timeout_ms_ = want;
  return absl::StrCat("SET statement_timeout = ", want, ";");
}

void Session::PrepareStatement(pqxx::transaction_base& txn) {
  std::string setup = StatementTimeSetting();
  if (trace_pending_) {
    trace_pending_ = false;
    // The request's trace id for the change log's trigger (migration 0013). Session-wide, not
    // local to txn: a write may be a lone statement in a nontransaction, which would lose a local
    // setting before it ran. The next write replaces it; a write outside a request clears it when
    // it may be set, so no change is blamed on an earlier request. It rides with the
    // statement_timeout SET when one is due; reads never send it. The id is validated hex
    // (common/trace_context.h), safe to inline.
    const RequestSpan* span = call_ != nullptr && call_->span ? &*call_->span : nullptr;
    if (span != nullptr || trace_may_be_set_) {
      absl::StrAppend(&setup, "SELECT set_config('hotel.trace_id', '", span ? span->trace_id() : "", "', false);");
      trace_may_be_set_ = span != nullptr;
    }
  }
  if (!setup.empty()) txn.exec(setup);
}

namespace {

// A statement's span: PostgreSQL's, named after the statement (semantic conventions for database
// spans); ended by the statement's end or its exception.
void DescribeStatement(Span& span, const std::string& name) {
  if (!span.recording()) return;
  span.SetAttribute("db.system", std::string("postgresql"));
  span.SetAttribute("db.system.name", std::string("postgresql"));
  span.SetAttribute("db.query.summary", name);
}

}  // namespace

void Session::Commit(pqxx::dbtransaction& txn) {
  if (auto status = CheckRequestBudget(call_, "before commit"); !status.ok()) throw RequestBudgetExhausted{status};
  Span span("COMMIT", SpanKind::kClient);
  DescribeStatement(span, "COMMIT");
  txn.commit();
}

pqxx::result Session::Exec(pqxx::transaction_base& txn, const SqlQuery& query) {
  if (auto status = CheckRequestBudget(call_, "before a statement"); !status.ok()) throw RequestBudgetExhausted{status};
  std::string name = absl::StrCat("q", FilterFingerprint(query.text));
  auto prepared = prepared_.find(name);
  if (prepared == prepared_.end()) {
    connection_->prepare(name, query.text);
    prepared = prepared_.emplace(name, StatementName(query.text)).first;
  }
  Span span(prepared->second, SpanKind::kClient);
  DescribeStatement(span, prepared->second);
  try {
    PrepareStatement(txn);
    return txn.exec_prepared(name, pqxx::prepare::make_dynamic_params(query.params));
  } catch (const pqxx::sql_error& e) {
    span.SetError(absl::StrCat("SQLSTATE ", e.sqlstate()));  // PostgreSQL's message may quote values
    throw;
  } catch (const std::exception&) {
    span.SetError("the statement failed");
    throw;
  }
}

namespace {

// url with key=value added, unless url already sets key (URL or key=value form).
std::string WithOption(const std::string& url, absl::string_view key, int64_t value) {
  if (absl::StrContains(url, absl::StrCat(key, "="))) return url;
  if (absl::StartsWith(url, "postgres://") || absl::StartsWith(url, "postgresql://")) {
    return absl::StrCat(url, absl::StrContains(url, "?") ? "&" : "?", key, "=", value);
  }
  return absl::StrCat(url, " ", key, "=", value);
}

}  // namespace

std::string WithConnectionDefaults(const std::string& url, absl::Duration connect_timeout) {
  std::string out = WithOption(url, "connect_timeout", std::max<int64_t>(1, absl::ToInt64Seconds(connect_timeout)));
  // TCP keepalives: a peer that vanished without closing (a dropped network path) is noticed
  // within about 11 s instead of the kernel's retransmission timeout of many minutes.
  out = WithOption(out, "keepalives_idle", 5);
  out = WithOption(out, "keepalives_interval", 2);
  return WithOption(out, "keepalives_count", 3);
}

ConnectionPool::ConnectionPool(PoolOptions options)
    : options_(std::move(options)),
      connection_string_(WithConnectionDefaults(options_.url, options_.connect_timeout)) {}

absl::StatusOr<std::unique_ptr<Session>> ConnectionPool::Connect() {
  try {
    auto connection = std::make_unique<pqxx::connection>(connection_string_);
    pqxx::nontransaction setup(*connection);
    setup.exec(absl::StrCat("SET statement_timeout = ", absl::ToInt64Milliseconds(options_.statement_timeout),
                            "; SET application_name = 'hotel-server'"));
    setup.commit();
    return std::make_unique<Session>(std::move(connection), options_.statement_timeout);
  } catch (const std::exception& e) {
    LogWarning("database connection failed", {{"error", e.what()}});
    return UnavailableError("DATABASE_UNAVAILABLE", "database is unavailable");
  }
}

absl::StatusOr<std::unique_ptr<Session>> ConnectionPool::Acquire(const CallContext* call, bool* reused) {
  // A request waits no longer than it has left: past its deadline nobody wants the answer.
  const absl::Duration left = RequestTimeLeft(call);
  if (left < options_.acquire_timeout) return AcquireBefore(reused, absl::Now() + left);
  return AcquireBefore(reused, absl::InfiniteFuture());
}

absl::StatusOr<std::unique_ptr<Session>> ConnectionPool::AcquireBefore(bool* reused, absl::Time deadline) {
  const absl::Time start = absl::Now();
  {
    absl::MutexLock lock(&mu_);
    auto can_proceed = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !idle_.empty() || open_ < options_.size; };
    if (!can_proceed()) {
      ++waited_total_;
      const bool ready =
          mu_.AwaitWithDeadline(absl::Condition(&can_proceed), std::min(deadline, start + options_.acquire_timeout));
      wait_total_ += absl::Now() - start;
      if (!ready && absl::Now() >= deadline) {
        return absl::DeadlineExceededError("the request's deadline passed while it waited for a database connection");
      }
      if (!ready) {
        return UnavailableError("DATABASE_POOL_EXHAUSTED", "no database connection became free in time");
      }
    }
    ++acquired_total_;
    ++in_use_;
    if (!idle_.empty()) {
      auto session = std::move(idle_.back());
      idle_.pop_back();
      *reused = true;
      return session;
    }
    ++open_;  // reserve the slot before connecting outside the lock
  }
  *reused = false;
  auto session = Connect();
  if (!session.ok()) {
    absl::MutexLock lock(&mu_);
    --open_;
    --in_use_;
  }
  return session;
}

void ConnectionPool::Release(std::unique_ptr<Session> session, bool healthy) {
  absl::MutexLock lock(&mu_);
  --in_use_;
  if (healthy && !session->discarded() && session->connection().is_open()) {
    idle_.push_back(std::move(session));
  } else {
    --open_;
    session.reset();  // closing under the lock is cheap: the socket is already dead or idle
  }
}

absl::Status ConnectionPool::Fill() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (open_ >= options_.size) return absl::OkStatus();
      ++open_;  // reserved, as in AcquireBefore, so that a call connecting meanwhile cannot exceed size
    }
    auto session = Connect();
    absl::MutexLock lock(&mu_);
    if (!session.ok()) {
      --open_;
      return session.status();
    }
    idle_.push_back(*std::move(session));
  }
}

void ConnectionPool::DropIdle() {
  std::vector<std::unique_ptr<Session>> dropped;
  absl::MutexLock lock(&mu_);
  open_ -= static_cast<int>(idle_.size());
  dropped.swap(idle_);
}

absl::Status StatusFromCurrentException(Failure* failure) {
  *failure = Failure::kNone;
  try {
    throw;
  } catch (const pqxx::broken_connection& e) {
    *failure = Failure::kConnectionLost;
    return UnavailableError("DATABASE_UNAVAILABLE", "database connection lost");
  } catch (const pqxx::in_doubt_error& e) {
    *failure = Failure::kConnectionLost;
    return UnavailableError("COMMIT_IN_DOUBT",
                            "database connection lost during commit; retry with the same request_id");
  } catch (const pqxx::statement_completion_unknown& e) {
    *failure = Failure::kConnectionLost;
    return UnavailableError("COMMIT_IN_DOUBT",
                            "the outcome of the statement is unknown; retry with the same request_id");
  } catch (const pqxx::transaction_rollback& e) {
    // libpqxx 6 throws deadlock_detected (40P01) and serialization_failure (40001) as
    // transaction_rollback, which is not an sql_error: without this they ended up as INTERNAL.
    *failure = Failure::kConflict;
    return AbortedError("CONCURRENT_UPDATE", "concurrent update; retry the request");
  } catch (const pqxx::sql_error& e) {
    const std::string state = e.sqlstate();
    if (state == "57014") return absl::DeadlineExceededError("database statement timed out");
    if (state == "25006") {
      // read_only_sql_transaction: the connection outlived a failover on a primary that is now a
      // standby. Nothing was written; this connection (and its idle peers) must go, so the next
      // ones reach the new primary (target_session_attrs=read-write, or the operator's -rw Service).
      *failure = Failure::kConnectionLost;
      return UnavailableError("DATABASE_FAILOVER", "the database is failing over; retry with the same request_id");
    }
    if (absl::StartsWith(state, "08") || absl::StartsWith(state, "57P") || absl::StartsWith(state, "53")) {
      if (absl::StartsWith(state, "08") || absl::StartsWith(state, "57P")) *failure = Failure::kConnectionLost;
      return UnavailableError("DATABASE_UNAVAILABLE", "database is unavailable");
    }
    LogError("database error", {{"sqlstate", state}, {"error", e.what()}});
    return absl::InternalError("database error");
  } catch (const std::exception& e) {
    LogError("unexpected error", {{"error", e.what()}});
    return absl::InternalError("unexpected error");
  }
}

namespace {

thread_local bool primary_reads = false;

// The primary's WAL position just after the session's commit: at or past its commit record, so a
// replica that has replayed this far shows the write. Outside the request's budget (it has
// committed); a failure (nullopt) leaves the call without a token, never fails a committed write.
std::optional<uint64_t> CommitPosition(Session& session, Failure* failure) {
  try {
    pqxx::nontransaction txn(session.connection());
    return static_cast<uint64_t>(txn.exec(std::string(sql::db::kWalPosition))[0][0].as<int64_t>());
  } catch (const std::exception&) {
    (void)StatusFromCurrentException(failure);
    return std::nullopt;
  }
}

}  // namespace

PrimaryReads::PrimaryReads() : previous_(primary_reads) { primary_reads = true; }
PrimaryReads::~PrimaryReads() { primary_reads = previous_; }
bool PrimaryReads::Active() { return primary_reads; }

absl::Status ConnectionPool::Run(Access access, const std::function<absl::Status(Session&)>& work) {
  const CallContext* call = CurrentCall();
  CallWrites* const writes =
      access == Access::kWrite && options_.record_commit_position ? CurrentCallWrites() : nullptr;
  if (access == Access::kRead && options_.read_elsewhere && !PrimaryReads::Active()) {
    if (std::optional<absl::Status> served = options_.read_elsewhere(call, work)) return *std::move(served);
  }
  int conflicts = 0;
  for (int attempt = 0;; ++attempt) {
    if (auto budget = CheckRequestBudget(call, "before waiting for a database connection"); !budget.ok()) {
      return budget;
    }
    bool reused = false;
    auto session = Acquire(call, &reused);
    if (!session.ok()) return session.status();
    (*session)->Serve(call);
    Failure failure = Failure::kNone;
    absl::Status status;
    (*session)->SendTraceWithNextStatement(access == Access::kWrite);
    {
      // The unit of work's span (one per attempt): its statements are its children.
      Span span(access == Access::kWrite ? "db write" : "db read", SpanKind::kInternal);
      if (span.recording()) {
        span.SetAttribute("db.system", std::string("postgresql"));
        span.SetAttribute("db.system.name", std::string("postgresql"));
        if (attempt > 0) span.SetAttribute("hotel.db.attempt", static_cast<int64_t>(attempt + 1));
      }
      try {
        status = work(**session);
      } catch (const RequestBudgetExhausted& exhausted) {
        status = exhausted.status;
      } catch (...) {
        status = StatusFromCurrentException(&failure);
      }
      if (!status.ok()) span.SetError(status.message());
    }
    if (status.ok() && writes != nullptr) {
      if (std::optional<uint64_t> position = CommitPosition(**session, &failure)) writes->Committed(*position);
    }
    if (!status.ok()) (*session)->ForgetSessionSettings();
    (*session)->Serve(nullptr);
    Release(std::move(*session), failure != Failure::kConnectionLost);
    if (access == Access::kWrite && options_.after_write) options_.after_write();
    if (failure == Failure::kConflict) {
      // PostgreSQL rolled the transaction back, so running it again cannot apply it twice. The
      // back-off grows and is jittered so the transactions that collided do not meet again,
      // and no connection is held while waiting.
      if (access != Access::kWrite || ++conflicts >= options_.conflict_attempts) {
        if (conflicts > 1) {
          return AbortedError("CONCURRENT_UPDATE",
                              absl::StrCat("concurrent updates conflicted ", conflicts, " times; retry the request"));
        }
        return status;
      }
      {
        absl::MutexLock lock(&mu_);
        ++conflict_retries_total_;
      }
      thread_local absl::BitGen jitter;
      absl::SleepFor(options_.conflict_backoff * (1 << std::min(conflicts - 1, 6)) * absl::Uniform(jitter, 0.5, 1.5));
      continue;
    }
    if (failure != Failure::kConnectionLost) return status;
    // The others connected at the same time are most likely dead too.
    DropIdle();
    if (access != Access::kRead || !reused || attempt > 0) return status;
  }
}

PoolStats ConnectionPool::Stats() const {
  absl::MutexLock lock(&mu_);
  return PoolStats{options_.size,          open_,         in_use_,
                   acquired_total_,        waited_total_, absl::ToDoubleSeconds(wait_total_),
                   conflict_retries_total_};
}

}  // namespace hotel::db
