// Versioned schema migrations, compiled into the binary from server/migrations/NNNN_name.sql.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "db/pool.h"

namespace hotel::db {

struct Migration {
  int version;
  std::string name;
  std::string sql;
};

const std::vector<Migration>& EmbeddedMigrations();

// Applies the pending migrations in one transaction under a PostgreSQL advisory lock, so
// replicas starting together apply each migration exactly once. Returns the schema version.
absl::StatusOr<int> ApplyMigrations(ConnectionPool& pool, const std::vector<Migration>& migrations);

}  // namespace hotel::db
