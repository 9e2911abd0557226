// A fresh, migrated PostgreSQL database per test binary run, created in the cluster named by
// TEST_DATABASE_URL (the test script starts that cluster) and dropped at exit.
#pragma once

#include <memory>
#include <string>

#include "db/pool.h"

namespace hotel::testing {

class TestDatabase {
 public:
  // The shared instance; created and migrated on first use.
  static TestDatabase& Get();
  const std::string& url() const { return url_; }
  db::ConnectionPool& pool() { return *pool_; }
  // Runs one SQL statement outside the code under test (fixtures, checks).
  void Exec(const std::string& sql);

  ~TestDatabase();

 private:
  TestDatabase();
  std::string admin_url_;
  std::string name_;
  std::string url_;
  std::unique_ptr<db::ConnectionPool> pool_;
};

}  // namespace hotel::testing
