#include "db/pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "absl/time/clock.h"
#include "common/call_context.h"
#include "common/errors.h"
#include "test_database.h"

namespace hotel::db {
namespace {

TEST(Pool, UnreachableDatabaseFailsFastAsUnavailable) {
  // Nothing listens on port 1: the connection is refused at once.
  ConnectionPool pool({"postgresql://hotel@127.0.0.1:1/hotel", 2});
  const absl::Time start = absl::Now();
  absl::Status status = pool.Run(Access::kRead, [](Session&) { return absl::OkStatus(); });
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(ErrorReason(status), "DATABASE_UNAVAILABLE");
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  EXPECT_EQ(pool.Stats().open, 0);
}

// hotel.trace_id as the change log's trigger reads it, after a unit of work's first statement.
std::string TraceSetting(ConnectionPool& pool, Access access) {
  std::string value;
  EXPECT_TRUE(pool.Run(access,
                       [&](Session& s) {
                         pqxx::nontransaction txn(s.connection());
                         auto row = s.Exec(txn, {"SELECT coalesce(current_setting('hotel.trace_id', true), '')", {}});
                         value = row[0][0].c_str();
                         return absl::OkStatus();
                       })
                  .ok());
  return value;
}

TEST(Pool, WritesOfARequestCarryItsTraceIdAndOthersNone) {
  auto& db = testing::TestDatabase::Get();
  ConnectionPool pool({db.url(), 1});  // one connection: every unit of work sees the last's settings
  CallContext call{RequestSpan("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", ""), {}};
  {
    ScopedCallContext in_call(&call);
    // A lone statement in a nontransaction (autocommit) sees it too.
    EXPECT_EQ(TraceSetting(pool, Access::kWrite), "4bf92f3577b34da6a3ce929d0e0e4736");
  }
  EXPECT_EQ(TraceSetting(pool, Access::kWrite), "");  // a write outside a request clears it

  CallContext other{RequestSpan("", ""), {}};
  ScopedCallContext in_other(&other);
  EXPECT_EQ(TraceSetting(pool, Access::kRead), "");  // reads send nothing
  EXPECT_EQ(TraceSetting(pool, Access::kWrite), other.span->trace_id());
}

TEST(Pool, ACallsWritesReportTheirCommitPositionAndItsReadsNothing) {
  auto& db = testing::TestDatabase::Get();
  PoolOptions options{db.url(), 1};
  options.record_commit_position = true;
  ConnectionPool pool(options);
  const auto write = [](Session& s) {
    pqxx::work txn(s.connection());
    s.Exec(txn, {"SELECT 1", {}});
    s.Commit(txn);
    return absl::OkStatus();
  };
  const CallContext call;
  CallWrites writes;
  ScopedCallContext in_call(&call, &writes);
  ASSERT_TRUE(pool.Run(Access::kRead, write).ok());
  EXPECT_EQ(writes.committed, 0u);
  ASSERT_TRUE(pool.Run(Access::kWrite, write).ok());
  const uint64_t first = writes.committed;
  EXPECT_GT(first, 0u);
  ASSERT_TRUE(pool.Run(Access::kWrite, write).ok());
  EXPECT_GE(writes.committed, first);  // never an older one
  {
    ScopedCallContext elsewhere(&call);  // work that reports its writes nowhere
    ASSERT_TRUE(pool.Run(Access::kWrite, write).ok());
  }
}

TEST(Pool, NeverOpensMoreThanItsSize) {
  auto& db = testing::TestDatabase::Get();
  ConnectionPool pool({db.url(), 3, absl::Seconds(10)});
  std::atomic<int> concurrent{0}, peak{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 12; ++i) {
    threads.emplace_back([&] {
      ASSERT_TRUE(pool.Run(Access::kRead,
                           [&](Session& s) {
                             int now = ++concurrent;
                             int seen = peak.load();
                             while (now > seen && !peak.compare_exchange_weak(seen, now)) {
                             }
                             pqxx::nontransaction txn(s.connection());
                             txn.exec("SELECT pg_sleep(0.02)");
                             --concurrent;
                             return absl::OkStatus();
                           })
                      .ok());
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_LE(peak.load(), 3);
  PoolStats stats = pool.Stats();
  EXPECT_LE(stats.open, 3);
  EXPECT_EQ(stats.in_use, 0);
  EXPECT_EQ(stats.acquired_total, 12);
  EXPECT_GT(stats.waited_total, 0);
}

TEST(Pool, FillOpensItsSizeOnceAndCallsThenConnectNoMore) {
  auto& db = testing::TestDatabase::Get();
  ConnectionPool pool({db.url(), 4});
  ASSERT_TRUE(pool.Fill().ok());
  EXPECT_EQ(pool.Stats().open, 4);
  ASSERT_TRUE(pool.Fill().ok());  // full: nothing more
  EXPECT_EQ(pool.Stats().open, 4);
  const double filled_at = absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch());
  // Four calls at once, each holding its connection until all four have one: every backend they
  // run on was started before Fill returned.
  std::atomic<int> arrived{0};
  std::vector<double> started(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      ASSERT_TRUE(pool.Run(Access::kRead,
                           [&](Session& s) {
                             pqxx::nontransaction txn(s.connection());
                             started[i] = txn.exec1(
                                                 "SELECT extract(epoch FROM backend_start)::float8 FROM "
                                                 "pg_stat_activity WHERE pid = pg_backend_pid()")[0]
                                              .as<double>();
                             ++arrived;
                             while (arrived.load() < 4) std::this_thread::yield();
                             return absl::OkStatus();
                           })
                      .ok());
    });
  }
  for (auto& t : threads) t.join();
  for (double start : started) EXPECT_LT(start, filled_at);
  EXPECT_EQ(pool.Stats().open, 4);
  pool.DropIdle();
  EXPECT_EQ(pool.Stats().open, 0);
  ASSERT_TRUE(pool.Fill().ok());  // after an outage's drop, the health monitor fills it again
  EXPECT_EQ(pool.Stats().open, 4);
}

TEST(Pool, FillOfAnUnreachableDatabaseFailsAndReservesNothing) {
  ConnectionPool pool({"postgresql://hotel@127.0.0.1:1/hotel", 2});
  absl::Status status = pool.Fill();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(pool.Stats().open, 0);
  // The slots it tried are free again: a call still gets its own connection attempt.
  EXPECT_EQ(pool.Run(Access::kRead, [](Session&) { return absl::OkStatus(); }).code(), absl::StatusCode::kUnavailable);
}

TEST(Pool, ExhaustedPoolAnswersUnavailableAfterTheAcquireTimeout) {
  auto& db = testing::TestDatabase::Get();
  ConnectionPool pool({db.url(), 1, absl::Milliseconds(100)});
  std::thread holder([&] {
    EXPECT_TRUE(pool.Run(Access::kRead,
                         [](Session& s) {
                           pqxx::nontransaction txn(s.connection());
                           txn.exec("SELECT pg_sleep(0.5)");
                           return absl::OkStatus();
                         })
                    .ok());
  });
  ASSERT_TRUE(testing::Eventually([&] { return pool.Stats().in_use == 1; }));  // the holder has the connection
  absl::Status status = pool.Run(Access::kRead, [](Session&) { return absl::OkStatus(); });
  holder.join();
  EXPECT_EQ(ErrorReason(status), "DATABASE_POOL_EXHAUSTED");
}

TEST(Pool, StatementTimeoutBecomesDeadlineExceeded) {
  auto& db = testing::TestDatabase::Get();
  ConnectionPool pool({db.url(), 1, absl::Seconds(1), absl::Seconds(2), absl::Milliseconds(50)});
  absl::Status status = pool.Run(Access::kRead, [](Session& s) {
    pqxx::nontransaction txn(s.connection());
    txn.exec("SELECT pg_sleep(1)");
    return absl::OkStatus();
  });
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  // The connection stays usable after a cancelled statement.
  EXPECT_TRUE(pool.Run(Access::kRead,
                       [](Session& s) {
                         pqxx::nontransaction txn(s.connection());
                         txn.exec("SELECT 1");
                         return absl::OkStatus();
                       })
                  .ok());
}

TEST(Pool, ReadsRecoverFromAConnectionKilledUnderThem) {
  auto& db = testing::TestDatabase::Get();
  ConnectionPool pool({db.url(), 1});
  int backend = 0;
  ASSERT_TRUE(pool.Run(Access::kRead,
                       [&](Session& s) {
                         pqxx::nontransaction txn(s.connection());
                         backend = txn.exec1("SELECT pg_backend_pid()")[0].as<int>();
                         return absl::OkStatus();
                       })
                  .ok());
  db.ExecAsAdmin("SELECT pg_terminate_backend(" + std::to_string(backend) + ")");
  int second = 0;
  absl::Status status = pool.Run(Access::kRead, [&](Session& s) {
    pqxx::nontransaction txn(s.connection());
    second = txn.exec1("SELECT pg_backend_pid()")[0].as<int>();
    return absl::OkStatus();
  });
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_NE(second, backend);
}

// Raises the SQLSTATE PostgreSQL gives a deadlock victim or a serialization failure.
void RaiseConflict(Session& session, const std::string& sqlstate) {
  pqxx::work txn(session.connection());
  txn.exec("DO $$ BEGIN RAISE EXCEPTION 'forced conflict' USING ERRCODE = '" + sqlstate + "'; END $$");
}

TEST(Pool, AWriteAbortedForAConflictIsRunAgainAndSucceeds) {
  auto& db = testing::TestDatabase::Get();
  for (const std::string sqlstate : {"40P01", "40001"}) {
    ConnectionPool pool({db.url(), 2});
    int attempts = 0;
    absl::Status status = pool.Run(Access::kWrite, [&](Session& s) {
      if (++attempts <= 2) RaiseConflict(s, sqlstate);
      return absl::OkStatus();
    });
    EXPECT_TRUE(status.ok()) << sqlstate << ": " << status;
    EXPECT_EQ(attempts, 3) << sqlstate;
    EXPECT_EQ(pool.Stats().conflict_retries_total, 2) << sqlstate;
    EXPECT_EQ(pool.Stats().in_use, 0);  // no connection held across the back-off
  }
}

TEST(Pool, AWriteThatKeepsConflictingEndsAbortedWithAReason) {
  auto& db = testing::TestDatabase::Get();
  PoolOptions options{db.url(), 2};
  options.conflict_attempts = 4;
  ConnectionPool pool(options);
  int attempts = 0;
  absl::Status status = pool.Run(Access::kWrite, [&](Session& s) {
    ++attempts;
    RaiseConflict(s, "40P01");
    return absl::OkStatus();
  });
  EXPECT_EQ(attempts, 4);
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(ErrorReason(status), "CONCURRENT_UPDATE");
  EXPECT_NE(status.message().find("4 times"), std::string::npos) << status.message();
}

TEST(Pool, ReadsAreNotRunAgainAfterAConflict) {
  auto& db = testing::TestDatabase::Get();
  ConnectionPool pool({db.url(), 2});
  int attempts = 0;
  absl::Status status = pool.Run(Access::kRead, [&](Session& s) {
    ++attempts;
    RaiseConflict(s, "40001");
    return absl::OkStatus();
  });
  EXPECT_EQ(attempts, 1);
  EXPECT_EQ(ErrorReason(status), "CONCURRENT_UPDATE");
}

}  // namespace
}  // namespace hotel::db
