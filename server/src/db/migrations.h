// Versioned schema migrations, compiled into the binary from server/migrations/NNNN_name.sql,
// and the privileges of the runtime role (docs/operations.md, "Database roles").
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

struct MigrationOptions {
  // The role the server serves requests as. When set (and not the migrating role itself), the
  // same transaction grants it DML on every table, USAGE/SELECT on every sequence and EXECUTE on
  // every function in schema public (schema_migrations: SELECT only), and makes those the
  // default privileges for whatever the migrating role creates later, so a new table can never
  // be left out. It gets no DDL, no ownership, and no temporary tables.
  std::string runtime_role;
};

// Applies the pending migrations in one transaction under a PostgreSQL advisory lock, so
// replicas starting together apply each migration exactly once. Needs the schema owner's
// rights. Returns the schema version.
absl::StatusOr<int> ApplyMigrations(ConnectionPool& pool, const std::vector<Migration>& migrations,
                                    const MigrationOptions& options = {});

// The newest migration recorded in the database (0 when none). Needs only SELECT.
absl::StatusOr<int> SchemaVersion(ConnectionPool& pool);

// Brings the database to the newest of migrations for a process that serves with pool:
// - with owner_pool (the schema owner's, MIGRATION_DATABASE_URL): migrates with it and grants
//   pool's role (the runtime role) its privileges, then closes the owner's connection;
// - without: nothing to do when the schema is current, which is all the runtime role may check;
//   otherwise it migrates with pool itself (a single-role setup, DATABASE_URL being the owner).
// Returns the schema version.
absl::StatusOr<int> PrepareSchema(ConnectionPool& pool, ConnectionPool* owner_pool,
                                  const std::vector<Migration>& migrations);

}  // namespace hotel::db
