#include <gtest/gtest.h>

#include "db/pool.h"

namespace hotel::db {
namespace {

TEST(Pool, ConnectTimeoutIsAddedOnce) {
  EXPECT_EQ(WithConnectTimeout("postgresql://h/db", absl::Seconds(2)), "postgresql://h/db?connect_timeout=2");
  EXPECT_EQ(WithConnectTimeout("postgresql://h/db?sslmode=disable", absl::Seconds(3)),
            "postgresql://h/db?sslmode=disable&connect_timeout=3");
  EXPECT_EQ(WithConnectTimeout("host=h dbname=db", absl::Seconds(2)), "host=h dbname=db connect_timeout=2");
  EXPECT_EQ(WithConnectTimeout("postgresql://h/db?connect_timeout=9", absl::Seconds(2)),
            "postgresql://h/db?connect_timeout=9");
}

}  // namespace
}  // namespace hotel::db
