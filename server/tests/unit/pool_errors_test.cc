// How libpqxx exceptions become statuses: conflicts PostgreSQL rolled back are retryable ABORTED,
// never INTERNAL (libpqxx 6 does not derive them from sql_error).
#include <gtest/gtest.h>

#include <pqxx/pqxx>

#include "common/errors.h"
#include "db/pool.h"

namespace hotel::db {
namespace {

template <typename Exception>
absl::Status StatusOf(const Exception& exception, Failure* failure) {
  try {
    throw exception;
  } catch (...) {
    return StatusFromCurrentException(failure);
  }
}

TEST(StatusFromException, DeadlocksAndSerializationFailuresAreRetryableConflicts) {
  Failure failure = Failure::kNone;
  absl::Status deadlock = StatusOf(pqxx::deadlock_detected("deadlock detected"), &failure);
  EXPECT_EQ(deadlock.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(ErrorReason(deadlock), "CONCURRENT_UPDATE");
  EXPECT_EQ(failure, Failure::kConflict);
  absl::Status serialization = StatusOf(pqxx::serialization_failure("could not serialize access"), &failure);
  EXPECT_EQ(serialization.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(failure, Failure::kConflict);
}

TEST(StatusFromException, OtherFailuresAreNotRetriedAsConflicts) {
  Failure failure = Failure::kNone;
  EXPECT_EQ(StatusOf(pqxx::broken_connection("gone"), &failure).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(failure, Failure::kConnectionLost);
  EXPECT_EQ(ErrorReason(StatusOf(pqxx::statement_completion_unknown("?"), &failure)), "COMMIT_IN_DOUBT");
  EXPECT_EQ(failure, Failure::kConnectionLost);
  EXPECT_EQ(StatusOf(pqxx::sql_error("syntax error", "SELEC", "42601"), &failure).code(), absl::StatusCode::kInternal);
  EXPECT_EQ(failure, Failure::kNone);
}

}  // namespace
}  // namespace hotel::db
