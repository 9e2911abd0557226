#include "db/migrations.h"

#include "absl/strings/str_cat.h"
#include "common/log.h"

namespace hotel::db {
namespace {
// Arbitrary constant shared by every replica: "hotel" in ASCII.
constexpr int64_t kMigrationLockKey = 0x686f74656c;
}  // namespace

absl::StatusOr<int> ApplyMigrations(ConnectionPool& pool, const std::vector<Migration>& migrations) {
  int schema_version = 0;
  absl::Status status = pool.Run(Access::kWrite, [&](Session& session) {
    pqxx::work txn(session.connection());
    txn.exec_params("SELECT pg_advisory_xact_lock($1)", kMigrationLockKey);
    txn.exec(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version integer PRIMARY KEY, name text NOT NULL,"
        " applied_at timestamptz NOT NULL DEFAULT now())");
    auto row = txn.exec1("SELECT coalesce(max(version), 0) FROM schema_migrations");
    schema_version = row[0].as<int>();
    for (const auto& m : migrations) {
      if (m.version <= schema_version) continue;
      LogInfo("applying migration", {{"version", absl::StrCat(m.version)}, {"name", m.name}});
      txn.exec(m.sql);
      txn.exec_params("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name);
      schema_version = m.version;
    }
    txn.commit();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return schema_version;
}

}  // namespace hotel::db
