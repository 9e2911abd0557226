// A fresh, migrated PostgreSQL database per test binary run, created in the cluster that
// scripts/test.sh starts and dropped at exit. Like production, it has two roles:
//   TEST_DATABASE_URL        the runtime role: pool(), i.e. the code under test, runs as it
//   TEST_DATABASE_OWNER_URL  the schema owner: migrations, owner_pool(), Exec() (fixtures and
//                            checks outside the code under test; what it creates gets the runtime
//                            role's default privileges, as if a migration had made it)
//   TEST_DATABASE_ADMIN_URL  creates and drops the database; ExecAsAdmin() (faults such as
//                            pg_terminate_backend, which the owner may not send)
// Each URL's database name is replaced with the test database's. The owner and admin URLs fall
// back to TEST_DATABASE_URL (one role for everything) when unset.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "db/pool.h"

namespace hotel::testing {

class TestDatabase {
 public:
  // The shared instance; created and migrated on first use.
  static TestDatabase& Get();
  // The runtime role's URL and pool.
  const std::string& url() const { return url_; }
  db::ConnectionPool& pool() { return *pool_; }
  // The schema owner's URL and pool (migrations, DDL in tests).
  const std::string& owner_url() const { return owner_url_; }
  db::ConnectionPool& owner_pool() { return *owner_pool_; }
  // The role names behind url() and owner_url().
  const std::string& runtime_role() const { return runtime_role_; }
  const std::string& owner_role() const { return owner_role_; }
  // Runs one SQL statement as the schema owner, outside the code under test (fixtures, checks).
  void Exec(const std::string& sql);
  // The same as the admin role.
  void ExecAsAdmin(const std::string& sql);
  // The first column of the first row of sql, read as the runtime role ("" for NULL).
  std::string Scalar(const std::string& sql);

  ~TestDatabase();

 private:
  TestDatabase();
  std::string admin_url_;  // the cluster's, database "postgres" or any
  std::string name_;
  std::string admin_test_url_;  // the same role, in the test database
  std::string url_;
  std::string owner_url_;
  std::string runtime_role_;
  std::string owner_role_;
  std::unique_ptr<db::ConnectionPool> pool_;
  std::unique_ptr<db::ConnectionPool> owner_pool_;
};

// Polls condition every few milliseconds until it holds (true) or timeout has passed (false): how a
// test waits for a state another thread or process brings about, never by sleeping a while.
bool Eventually(const std::function<bool()>& condition, absl::Duration timeout = absl::Seconds(5));

}  // namespace hotel::testing
