#include "test_database.h"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include <gtest/gtest.h>
#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "db/migrations.h"

namespace hotel::testing {
namespace {

// Replaces the database name (the path after the last '/') of a postgresql:// URL.
std::string WithDatabase(const std::string& url, const std::string& name) {
  const size_t query = url.find('?');
  const std::string base = url.substr(0, query);
  const std::string rest = query == std::string::npos ? "" : url.substr(query);
  return absl::StrCat(base.substr(0, base.rfind('/') + 1), name, rest);
}

}  // namespace

TestDatabase& TestDatabase::Get() {
  static TestDatabase* instance = new TestDatabase();
  return *instance;
}

TestDatabase::TestDatabase() {
  const char* admin = std::getenv("TEST_DATABASE_URL");
  if (admin == nullptr || *admin == '\0') {
    throw std::runtime_error("TEST_DATABASE_URL is not set; run the tests with scripts/test.sh");
  }
  admin_url_ = admin;
  name_ = absl::StrCat("hotel_it_", getpid());
  {
    pqxx::connection admin_connection(admin_url_);
    pqxx::nontransaction txn(admin_connection);
    txn.exec(absl::StrCat("DROP DATABASE IF EXISTS ", name_));
    txn.exec(absl::StrCat("CREATE DATABASE ", name_));
  }
  url_ = WithDatabase(admin_url_, name_);
  pool_ = std::make_unique<db::ConnectionPool>(db::PoolOptions{url_, 8});
  auto version = db::ApplyMigrations(*pool_, db::EmbeddedMigrations());
  if (!version.ok()) throw std::runtime_error(std::string(version.status().message()));
  std::atexit([] { delete &Get(); });
}

TestDatabase::~TestDatabase() {
  pool_.reset();
  try {
    pqxx::connection admin_connection(admin_url_);
    pqxx::nontransaction txn(admin_connection);
    txn.exec(absl::StrCat("DROP DATABASE IF EXISTS ", name_, " WITH (FORCE)"));
  } catch (const std::exception&) {
    // The cluster may already be gone at exit; the next run drops leftovers by name.
  }
}

void TestDatabase::Exec(const std::string& sql) {
  pqxx::connection connection(url_);
  pqxx::nontransaction txn(connection);
  txn.exec(sql);
}

}  // namespace hotel::testing
