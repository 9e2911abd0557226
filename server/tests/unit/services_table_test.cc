// What the services table drives beside registration: the names grpc.health.v1 reports. That the
// table holds every service of the protos is service_lists_test's.
#include "app/services_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace hotel::app {
namespace {

TEST(ServicesTableTest, HealthReportsTheServerAndItsCheckedServicesOnly) {
  const std::vector<std::string> names = HealthNames();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "");
  EXPECT_NE(std::find(names.begin(), names.end(), "hotel.v1.RoomService"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "hotel.v1.MetricsService"), names.end());
}

}  // namespace
}  // namespace hotel::app
