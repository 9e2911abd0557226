#include "test_database.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <pqxx/pqxx>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
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

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value == nullptr || *value == '\0' ? fallback : value;
}

std::string CurrentUser(const std::string& url) {
  pqxx::connection connection(url);
  pqxx::nontransaction txn(connection);
  return txn.exec1("SELECT current_user")[0].as<std::string>();
}

}  // namespace

TestDatabase& TestDatabase::Get() {
  static TestDatabase* instance = new TestDatabase();
  return *instance;
}

TestDatabase::TestDatabase() {
  const std::string runtime = EnvOr("TEST_DATABASE_URL", "");
  if (runtime.empty()) {
    throw std::runtime_error("TEST_DATABASE_URL is not set; run the tests with scripts/test.sh");
  }
  const std::string owner = EnvOr("TEST_DATABASE_OWNER_URL", runtime);
  admin_url_ = EnvOr("TEST_DATABASE_ADMIN_URL", owner);
  name_ = absl::StrCat("hotel_it_", getpid());
  owner_role_ = CurrentUser(owner);
  runtime_role_ = CurrentUser(runtime);
  {
    pqxx::connection admin_connection(admin_url_);
    pqxx::nontransaction txn(admin_connection);
    txn.exec(absl::StrCat("DROP DATABASE IF EXISTS ", name_));
    txn.exec(absl::StrCat("CREATE DATABASE ", name_, " OWNER ", txn.quote_name(owner_role_)));
  }
  url_ = WithDatabase(runtime, name_);
  admin_test_url_ = WithDatabase(admin_url_, name_);
  owner_url_ = WithDatabase(owner, name_);
  pool_ = std::make_unique<db::ConnectionPool>(db::PoolOptions{url_, 8});
  owner_pool_ = std::make_unique<db::ConnectionPool>(db::PoolOptions{owner_url_, 4});
  // As a deployment does it: the owner migrates and grants, the runtime role only checks.
  auto version = db::PrepareSchema(*pool_, owner_pool_.get(), db::EmbeddedMigrations());
  if (!version.ok()) throw std::runtime_error(std::string(version.status().message()));
  std::atexit([] { delete &Get(); });
}

TestDatabase::~TestDatabase() {
  pool_.reset();
  owner_pool_.reset();
  try {
    pqxx::connection admin_connection(admin_url_);
    pqxx::nontransaction txn(admin_connection);
    txn.exec(absl::StrCat("DROP DATABASE IF EXISTS ", name_, " WITH (FORCE)"));
  } catch (const std::exception&) {
    // The cluster may already be gone at exit; the next run drops leftovers by name.
  }
}

void TestDatabase::Exec(const std::string& sql) {
  pqxx::connection connection(owner_url_);
  pqxx::nontransaction txn(connection);
  txn.exec(sql);
}

void TestDatabase::ExecAsAdmin(const std::string& sql) {
  pqxx::connection connection(admin_test_url_);
  pqxx::nontransaction txn(connection);
  txn.exec(sql);
}

std::string TestDatabase::Scalar(const std::string& sql) {
  std::string value;
  absl::Status status = pool().Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    auto row = txn.exec1(sql);
    value = row[0].is_null() ? "" : row[0].c_str();
    return absl::OkStatus();
  });
  if (!status.ok()) throw std::runtime_error(std::string(status.message()));
  return value;
}

bool Eventually(const std::function<bool()>& condition, absl::Duration timeout) {
  for (absl::Time until = absl::Now() + timeout; absl::Now() < until; absl::SleepFor(absl::Milliseconds(5))) {
    if (condition()) return true;
  }
  return condition();
}

}  // namespace hotel::testing
