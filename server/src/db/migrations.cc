#include "db/migrations.h"

#include "absl/strings/str_cat.h"
#include "common/log.h"

namespace hotel::db {
namespace {
// Arbitrary constant shared by every replica: "hotel" in ASCII.
constexpr int64_t kMigrationLockKey = 0x686f74656c;

// Grants role what the request path needs and nothing else. Runs on every migration, under the
// lock (concurrent GRANTs on one object fail with "tuple concurrently updated"), so tables made
// by earlier releases or by hand are covered as well as new ones.
void GrantRuntimeAccess(pqxx::work& txn, const std::string& role) {
  const std::string grantee = txn.quote_name(role);
  const std::string database = txn.quote_name(txn.exec1("SELECT current_database()")[0].as<std::string>());
  const std::string statements[] = {
      // Temporary tables would be DDL by another name; the owner keeps them as the database's owner.
      absl::StrCat("REVOKE TEMPORARY ON DATABASE ", database, " FROM PUBLIC"),
      absl::StrCat("GRANT CONNECT ON DATABASE ", database, " TO ", grantee),
      absl::StrCat("GRANT USAGE ON SCHEMA public TO ", grantee),
      absl::StrCat("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ", grantee),
      absl::StrCat("REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON schema_migrations FROM ", grantee),
      absl::StrCat("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ", grantee),
      absl::StrCat("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO ", grantee),
      absl::StrCat("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ",
                   grantee),
      absl::StrCat("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ", grantee),
      absl::StrCat("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT EXECUTE ON FUNCTIONS TO ", grantee),
  };
  for (const auto& sql : statements) txn.exec(sql);
}

absl::StatusOr<std::string> CurrentUser(ConnectionPool& pool) {
  std::string user;
  absl::Status status = pool.Run(Access::kRead, [&](Session& session) {
    pqxx::nontransaction txn(session.connection());
    user = txn.exec1("SELECT current_user")[0].as<std::string>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return user;
}

}  // namespace

absl::StatusOr<int> ApplyMigrations(ConnectionPool& pool, const std::vector<Migration>& migrations,
                                    const MigrationOptions& options) {
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
      LogInfo("applying migration", {{"version", m.version}, {"name", m.name}});
      txn.exec(m.sql);
      txn.exec_params("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name);
      schema_version = m.version;
    }
    if (!options.runtime_role.empty() &&
        options.runtime_role != txn.exec1("SELECT current_user")[0].as<std::string>()) {
      GrantRuntimeAccess(txn, options.runtime_role);
    }
    txn.commit();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return schema_version;
}

absl::StatusOr<int> SchemaVersion(ConnectionPool& pool) {
  int version = 0;
  absl::Status status = pool.Run(Access::kRead, [&](Session& session) {
    pqxx::nontransaction txn(session.connection());
    if (txn.exec1("SELECT to_regclass('schema_migrations') IS NOT NULL")[0].as<bool>()) {
      version = txn.exec1("SELECT coalesce(max(version), 0) FROM schema_migrations")[0].as<int>();
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return version;
}

absl::StatusOr<int> PrepareSchema(ConnectionPool& pool, ConnectionPool* owner_pool,
                                  const std::vector<Migration>& migrations) {
  const int newest = migrations.empty() ? 0 : migrations.back().version;
  if (owner_pool != nullptr) {
    auto runtime_role = CurrentUser(pool);
    if (!runtime_role.ok()) return runtime_role.status();
    auto version = ApplyMigrations(*owner_pool, migrations, {*runtime_role});
    owner_pool->DropIdle();  // the owner's session is not kept open beside the runtime pool
    return version;
  }
  auto version = SchemaVersion(pool);
  if (!version.ok() || *version >= newest) return version;
  version = ApplyMigrations(pool, migrations);
  if (!version.ok()) {
    return absl::FailedPreconditionError(absl::StrCat("the schema is behind this build (needs version ", newest,
                                                      ") and DATABASE_URL's role cannot migrate it (",
                                                      version.status().message(),
                                                      "): set MIGRATION_DATABASE_URL to the schema owner's URL, or run "
                                                      "hotel-server --migrate-only with it first"));
  }
  return version;
}

}  // namespace hotel::db
