// The two database roles: the runtime role (TestDatabase::pool(), what the server serves with)
// can read and write every table and nothing more; the schema owner migrates and grants.
#include <gtest/gtest.h>

#include <pqxx/pqxx>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "db/migrations.h"
#include "test_database.h"

namespace hotel::db {
namespace {

testing::TestDatabase& TwoRoleDatabase() {
  auto& db = testing::TestDatabase::Get();
  if (db.owner_role() == db.runtime_role()) {
    ADD_FAILURE() << "TEST_DATABASE_URL and TEST_DATABASE_OWNER_URL name the same role; "
                     "run the tests with scripts/test.sh";
  }
  return db;
}

// What running sql as the role of url does: "ok", "denied" (insufficient privilege, SQLSTATE
// 42501) or another error. Each statement in its own connection and transaction, rolled back
// (CREATE DATABASE, which no transaction may hold, alone). libpqxx 6.4 leaves sqlstate() empty
// for this error, so its exception type tells.
std::string Outcome(const std::string& url, const std::string& sql) {
  pqxx::connection connection(url);
  try {
    if (absl::StartsWith(sql, "CREATE DATABASE")) {
      pqxx::nontransaction txn(connection);
      txn.exec(sql);
      return "ok";
    }
    pqxx::work txn(connection);
    txn.exec(sql);
    txn.abort();
    return "ok";
  } catch (const pqxx::insufficient_privilege&) {
    return "denied";
  } catch (const pqxx::sql_error& e) {
    return absl::StrCat("error: ", e.what());
  }
}

TEST(Roles, RuntimeRoleCannotChangeTheSchemaOrCreateDatabasesOrRoles) {
  auto& db = TwoRoleDatabase();
  for (const std::string sql : {
           "CREATE TABLE it_new (n int)",
           "CREATE TEMP TABLE it_temp (n int)",
           "CREATE UNLOGGED TABLE it_unlogged (n int)",
           "CREATE VIEW it_view AS SELECT 1",
           "CREATE SCHEMA it_schema",
           "CREATE FUNCTION it_f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
           "CREATE INDEX it_rooms_floor ON rooms (floor)",
           "DROP TABLE rooms",
           "DROP TABLE schema_migrations",
           "ALTER TABLE rooms ADD COLUMN it_extra int",
           "ALTER TABLE rooms DISABLE TRIGGER ALL",
           "TRUNCATE rooms CASCADE",
           "CREATE DATABASE it_database",
           "CREATE ROLE it_role",
           "ALTER ROLE CURRENT_USER CREATEDB",
           "INSERT INTO schema_migrations (version, name) VALUES (99999, 'it')",
           "DELETE FROM schema_migrations",
       }) {
    EXPECT_EQ(Outcome(db.url(), sql), "denied") << sql;
  }
  // The owner can (rolled back), so the refusals above are about the role, not the statements.
  EXPECT_EQ(Outcome(db.owner_url(), "CREATE TABLE it_new (n int)"), "ok");
  EXPECT_EQ(Outcome(db.owner_url(), "ALTER TABLE rooms ADD COLUMN it_extra int"), "ok");
}

TEST(Roles, RuntimeRoleHasNoAttributesAndOwnsNothing) {
  auto& db = TwoRoleDatabase();
  pqxx::connection connection(db.url());
  pqxx::nontransaction txn(connection);
  auto role = txn.exec1(
      "SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolcanlogin "
      "FROM pg_roles WHERE rolname = current_user");
  EXPECT_FALSE(role[0].as<bool>()) << "superuser";
  EXPECT_FALSE(role[1].as<bool>()) << "createdb";
  EXPECT_FALSE(role[2].as<bool>()) << "createrole";
  EXPECT_FALSE(role[3].as<bool>()) << "replication";
  EXPECT_FALSE(role[4].as<bool>()) << "bypassrls";
  EXPECT_TRUE(role[5].as<bool>()) << "login";
  EXPECT_EQ(txn.exec1("SELECT count(*) FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member "
                      "WHERE r.rolname = current_user")[0]
                .as<int>(),
            0)
      << "member of other roles";
  EXPECT_EQ(txn.exec1("SELECT count(*) FROM pg_class WHERE relowner = "
                      "(SELECT oid FROM pg_roles WHERE rolname = current_user)")[0]
                .as<int>(),
            0);
  EXPECT_EQ(txn.exec1("SELECT count(*) FROM pg_proc WHERE proowner = "
                      "(SELECT oid FROM pg_roles WHERE rolname = current_user)")[0]
                .as<int>(),
            0);
  EXPECT_EQ(txn.exec1("SELECT count(*) FROM pg_namespace WHERE nspowner = "
                      "(SELECT oid FROM pg_roles WHERE rolname = current_user)")[0]
                .as<int>(),
            0);
  EXPECT_EQ(txn.exec1("SELECT count(*) FROM pg_database WHERE datdba = "
                      "(SELECT oid FROM pg_roles WHERE rolname = current_user)")[0]
                .as<int>(),
            0);
  EXPECT_FALSE(txn.exec1("SELECT has_database_privilege(current_database(), 'CREATE')")[0].as<bool>());
  EXPECT_FALSE(txn.exec1("SELECT has_database_privilege(current_database(), 'TEMPORARY')")[0].as<bool>());
  EXPECT_FALSE(txn.exec1("SELECT has_schema_privilege('public', 'CREATE')")[0].as<bool>());
}

TEST(Roles, RuntimeRoleHasExactlyDmlOnEveryTable) {
  auto& db = TwoRoleDatabase();
  pqxx::connection connection(db.url());
  pqxx::nontransaction txn(connection);
  int tables = 0;
  for (const auto& row : txn.exec("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")) {
    const std::string table = row[0].as<std::string>();
    const bool read_only = table == "schema_migrations";
    ++tables;
    for (const std::string privilege : {"SELECT", "INSERT", "UPDATE", "DELETE"}) {
      const bool expected = privilege == "SELECT" || !read_only;
      EXPECT_EQ(txn.exec_params1("SELECT has_table_privilege($1, $2)", table, privilege)[0].as<bool>(), expected)
          << table << " " << privilege;
    }
    for (const std::string privilege : {"TRUNCATE", "REFERENCES", "TRIGGER"}) {
      EXPECT_FALSE(txn.exec_params1("SELECT has_table_privilege($1, $2)", table, privilege)[0].as<bool>())
          << table << " " << privilege;
    }
  }
  EXPECT_GE(tables, 15);
  for (const auto& row : txn.exec("SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'")) {
    EXPECT_TRUE(txn.exec_params1("SELECT has_sequence_privilege($1, 'USAGE')", row[0].as<std::string>())[0].as<bool>())
        << row[0].as<std::string>();
  }
}

TEST(Roles, ATableAddedByALaterMigrationIsUsableByTheRuntimeRole) {
  auto& db = TwoRoleDatabase();
  std::vector<Migration> next = EmbeddedMigrations();
  next.push_back({9100, "it_later_table",
                  "CREATE TABLE it_later (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, n int);"
                  "CREATE SEQUENCE it_later_seq;"});
  // The runtime role neither migrates nor may: without the owner's URL this is refused, clearly.
  auto refused = PrepareSchema(db.pool(), nullptr, next);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition) << refused.status();
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "MIGRATION_DATABASE_URL")) << refused.status();

  // The owner migrates, as a new release's pod does before it serves.
  ConnectionPool owner({db.owner_url(), 1});
  auto version = PrepareSchema(db.pool(), &owner, next);
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, 9100);
  EXPECT_EQ(owner.Stats().open, 0) << "the owner's connection outlived the migration";

  absl::Status used = db.pool().Run(Access::kWrite, [](Session& session) {
    pqxx::work txn(session.connection());
    txn.exec("INSERT INTO it_later (n) VALUES (1), (2)");
    txn.exec("UPDATE it_later SET n = n + 1");
    txn.exec("DELETE FROM it_later WHERE n = 3");
    EXPECT_EQ(txn.exec1("SELECT count(*) FROM it_later")[0].as<int>(), 1);
    EXPECT_EQ(txn.exec1("SELECT nextval('it_later_seq')")[0].as<int>(), 1);
    txn.commit();
    return absl::OkStatus();
  });
  EXPECT_TRUE(used.ok()) << used;
  db.Exec("DROP TABLE it_later; DROP SEQUENCE it_later_seq; DELETE FROM schema_migrations WHERE version = 9100");
}

TEST(Roles, ACurrentSchemaNeedsNothingButTheRuntimeRole) {
  auto& db = TwoRoleDatabase();
  auto version = PrepareSchema(db.pool(), nullptr, EmbeddedMigrations());
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, EmbeddedMigrations().back().version);
  auto read = SchemaVersion(db.pool());
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, *version);
}

}  // namespace
}  // namespace hotel::db
