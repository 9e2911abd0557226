// Every service the protos of proto/hotel/v1 declare has a row in the services table
// (app/services_table.h), and every hotel.v1 row names one of them: adding a service to the protos
// without serving it fails here. The protos are read as they are in the source tree (a test links
// only the generated descriptors it uses, so the generated pool would not know them all).
#include "app/services_table.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "absl/strings/match.h"

namespace hotel::app {
namespace {

std::set<std::string> DeclaredServices() {
  static const std::regex kService(R"(^service\s+(\w+)\s*\{)");
  std::set<std::string> services;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(HOTEL_PROTO_DIR) + "/hotel/v1")) {
    if (entry.path().extension() != ".proto") continue;
    std::ifstream file(entry.path());
    std::string line;
    std::smatch match;
    while (std::getline(file, line)) {
      if (std::regex_search(line, match, kService)) services.insert("hotel.v1." + match[1].str());
    }
  }
  return services;
}

TEST(ServicesTableTest, EveryServiceOfTheProtosHasARow) {
  std::set<std::string> rows;
  for (const ServiceRow& row : ServicesTable()) EXPECT_TRUE(rows.insert(row.name).second) << row.name << " twice";
  const std::set<std::string> declared = DeclaredServices();
  EXPECT_GT(declared.size(), 10u);
  for (const std::string& service : declared) EXPECT_TRUE(rows.count(service)) << service << " has no row";
}

TEST(ServicesTableTest, EveryHotelRowNamesAServiceOfTheProtos) {
  const std::set<std::string> declared = DeclaredServices();
  for (const ServiceRow& row : ServicesTable()) {
    if (absl::StartsWith(row.name, "hotel.")) EXPECT_TRUE(declared.count(row.name)) << row.name;
  }
}

TEST(ServicesTableTest, HealthReportsTheServerAndItsCheckedServicesOnly) {
  const std::vector<std::string> names = HealthNames();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "");
  EXPECT_NE(std::find(names.begin(), names.end(), "hotel.v1.RoomService"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "hotel.v1.MetricsService"), names.end());
}

}  // namespace
}  // namespace hotel::app
