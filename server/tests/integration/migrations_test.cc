#include "db/migrations.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "test_database.h"

namespace hotel::db {
namespace {

TEST(Migrations, ReapplyingIsANoOp) {
  auto& db = testing::TestDatabase::Get();
  const int newest = EmbeddedMigrations().back().version;
  auto again = ApplyMigrations(db.owner_pool(), EmbeddedMigrations());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, newest);
}

TEST(Migrations, ReplicasStartingTogetherApplyEachOnce) {
  auto& db = testing::TestDatabase::Get();
  std::vector<Migration> extra = EmbeddedMigrations();
  extra.push_back({9000, "test_counter", "CREATE TABLE it_counter (n int); INSERT INTO it_counter VALUES (1);"});
  std::vector<std::thread> replicas;
  std::vector<absl::StatusOr<int>> results(4, absl::UnknownError("not run"));
  for (int i = 0; i < 4; ++i) {
    replicas.emplace_back(
        [&, i] { results[i] = ApplyMigrations(db.owner_pool(), extra, {i % 2 == 0 ? db.runtime_role() : ""}); });
  }
  for (auto& t : replicas) t.join();
  for (const auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(*r, 9000);
  }
  bool checked = false;
  // Read as the runtime role: the owner's default privileges cover the new table.
  ASSERT_TRUE(db.pool()
                  .Run(Access::kRead,
                       [&](Session& s) {
                         pqxx::nontransaction txn(s.connection());
                         EXPECT_EQ(txn.exec1("SELECT count(*) FROM it_counter")[0].as<int>(), 1);
                         checked = true;
                         return absl::OkStatus();
                       })
                  .ok());
  EXPECT_TRUE(checked);
  db.Exec("DROP TABLE it_counter; DELETE FROM schema_migrations WHERE version = 9000");
}

}  // namespace
}  // namespace hotel::db
