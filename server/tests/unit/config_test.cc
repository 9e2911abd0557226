#include "common/config.h"

#include <gtest/gtest.h>

#include <map>

#include "common/command_line.h"
#include "common/errors.h"

namespace hotel {
namespace {

std::map<std::string, std::string> env;
const char* FakeEnv(const char* name) {
  auto it = env.find(name);
  return it == env.end() ? nullptr : it->second.c_str();
}

TEST(Config, DefaultsAreLocalAndSafe) {
  env.clear();
  auto config = ParseConfig({}, FakeEnv);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->listen, "127.0.0.1:50051");
  EXPECT_EQ(config->pool_size, 8);
  EXPECT_EQ(config->statement_timeout, absl::Seconds(5));
  EXPECT_FALSE(config->migrate_only);
  EXPECT_EQ(config->database_url, "postgresql://hotel_runtime@127.0.0.1:54329/hotel");
  EXPECT_EQ(config->migration_database_url, "");  // serving needs no owner credentials
}

TEST(Config, MigrationURLComesFromItsOwnSetting) {
  env = {{"DATABASE_URL", "postgresql://runtime@db/hotel"}, {"MIGRATION_DATABASE_URL", "postgresql://owner@db/hotel"}};
  auto config = ParseConfig({}, FakeEnv);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->database_url, "postgresql://runtime@db/hotel");
  EXPECT_EQ(config->migration_database_url, "postgresql://owner@db/hotel");
  config = ParseConfig({"--migration-database-url=postgresql://other@db/hotel"}, FakeEnv);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->migration_database_url, "postgresql://other@db/hotel");
}

TEST(Config, FlagsOverrideEnvironment) {
  env = {{"DATABASE_URL", "postgresql://env/db"}, {"DB_POOL_SIZE", "4"}};
  auto config = ParseConfig({"--pool-size=16", "--listen", "0.0.0.0:0", "--migrate-only"}, FakeEnv);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->database_url, "postgresql://env/db");
  EXPECT_EQ(config->pool_size, 16);
  EXPECT_EQ(config->listen, "0.0.0.0:0");
  EXPECT_TRUE(config->migrate_only);
}

TEST(Config, BadValuesNameTheSetting) {
  env = {{"DB_STATEMENT_TIMEOUT", "soon"}};
  auto config = ParseConfig({}, FakeEnv);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(FieldViolations(config.status()).at(0).field, "DB_STATEMENT_TIMEOUT");
  env.clear();
  EXPECT_EQ(FieldViolations(ParseConfig({"--pool-size=0"}, FakeEnv).status()).at(0).field, "pool-size");
  EXPECT_EQ(FieldViolations(ParseConfig({"--bogus=1"}, FakeEnv).status()).at(0).field, "bogus");
}

TEST(Config, OldSnakeCaseSpellingsStillWork) {
  env.clear();
  auto config = ParseConfig({"--pool_size=16", "--change_max_watchers", "3", "--migrate_only"}, FakeEnv);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->pool_size, 16);
  EXPECT_EQ(config->change_max_watchers, 3);
  EXPECT_TRUE(config->migrate_only);
}

TEST(Config, EveryFlagIsKebabCase) {
  for (const auto& option : ConfigOptions()) EXPECT_EQ(option.flag, KebabFlagName(option.flag));
}

}  // namespace
}  // namespace hotel
