#include <gtest/gtest.h>

#include "db/pool.h"

namespace hotel::db {
namespace {

constexpr char kKeepalives[] = "keepalives_idle=5&keepalives_interval=2&keepalives_count=3";

TEST(Pool, ConnectionDefaultsAreAddedOnce) {
  EXPECT_EQ(WithConnectionDefaults("postgresql://h/db", absl::Seconds(2)),
            std::string("postgresql://h/db?connect_timeout=2&") + kKeepalives);
  EXPECT_EQ(WithConnectionDefaults("postgresql://h/db?sslmode=disable", absl::Seconds(3)),
            std::string("postgresql://h/db?sslmode=disable&connect_timeout=3&") + kKeepalives);
  EXPECT_EQ(WithConnectionDefaults("host=h dbname=db", absl::Seconds(2)),
            "host=h dbname=db connect_timeout=2 keepalives_idle=5 keepalives_interval=2 keepalives_count=3");
  EXPECT_EQ(WithConnectionDefaults("postgresql://h/db?connect_timeout=9&keepalives_idle=60", absl::Seconds(2)),
            "postgresql://h/db?connect_timeout=9&keepalives_idle=60&keepalives_interval=2&keepalives_count=3");
}

TEST(Pool, ConnectTimeoutIsAtLeastOneSecond) {
  EXPECT_EQ(WithConnectionDefaults("host=h", absl::Milliseconds(200)).substr(0, 24), "host=h connect_timeout=1");
}

}  // namespace
}  // namespace hotel::db
