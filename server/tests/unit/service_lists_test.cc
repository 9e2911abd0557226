// The three lists of services kept beside the protos, held against the protos' descriptor set
// (proto/CMakeLists.txt builds it): the services table (app/services_table.cc) serves every
// service of hotel.v1; the gateway (gateway/internal/httpapi/services.go) registers, and the
// OpenAPI overlay (gateway/openapi-overlay.yaml) tags, every one that http.yaml binds to REST. A
// service added to the protos and missing from a list fails here, naming the service and the list.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "app/services_table.h"
#include "google/protobuf/descriptor.pb.h"

namespace hotel::app {
namespace {

constexpr absl::string_view kPackage = "hotel.v1.";

// A list of services and who belongs in it.
struct ServiceList {
  std::string where;  // the file that holds it, as a failure names it
  bool bound_only;    // only the services http.yaml binds to REST belong in it
  std::set<std::string> names;
};

// What is wrong with lists, one line each: a service of protos missing from a list it belongs in,
// and a hotel.v1 name in a list that protos do not declare. bound: the services with REST bindings.
std::vector<std::string> CheckServiceLists(const google::protobuf::FileDescriptorSet& protos,
                                           const std::set<std::string>& bound, const std::vector<ServiceList>& lists) {
  std::set<std::string> declared;
  for (const auto& file : protos.file()) {
    if (file.package() + "." != kPackage) continue;
    for (const auto& service : file.service()) declared.insert(absl::StrCat(kPackage, service.name()));
  }
  std::vector<std::string> problems;
  for (const ServiceList& list : lists) {
    for (const std::string& service : declared) {
      if ((!list.bound_only || bound.count(service)) && !list.names.count(service)) {
        problems.push_back(absl::StrCat(service, " is missing from ", list.where));
      }
    }
    for (const std::string& name : list.names) {
      if (absl::StartsWith(name, kPackage) && !declared.count(name)) {
        problems.push_back(absl::StrCat(list.where, " names ", name, ", which the protos do not declare"));
      }
    }
  }
  return problems;
}

std::string Source(const std::string& path) { return absl::StrCat(HOTEL_SOURCE_DIR, "/", path); }

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

google::protobuf::FileDescriptorSet Protos() {
  google::protobuf::FileDescriptorSet protos;
  EXPECT_TRUE(protos.ParseFromString(ReadFile(HOTEL_DESCRIPTOR_SET))) << HOTEL_DESCRIPTOR_SET;
  return protos;
}

// The services of http.yaml's rules (selector hotel.v1.<Service>.<Method>).
std::set<std::string> BoundServices() {
  std::set<std::string> services;
  for (const auto& rule : YAML::LoadFile(Source("proto/hotel/v1/http.yaml"))["http"]["rules"]) {
    const std::string selector = rule["selector"].as<std::string>();
    services.insert(selector.substr(0, selector.rfind('.')));
  }
  return services;
}

std::vector<ServiceList> TheLists() {
  ServiceList table{"app/services_table.cc", false, {}};
  for (const ServiceRow& row : ServicesTable()) table.names.insert(row.name);

  ServiceList gateway{"gateway/internal/httpapi/services.go", true, {}};
  static const std::regex kRegistration(R"re(\{"(\w+)",\s*hotelv1\.Register\w+Handler\})re");
  const std::string go = ReadFile(Source(gateway.where));
  for (std::sregex_iterator it(go.begin(), go.end(), kRegistration), end; it != end; ++it) {
    gateway.names.insert(absl::StrCat(kPackage, (*it)[1].str()));
  }

  ServiceList overlay{"gateway/openapi-overlay.yaml (tags)", true, {}};
  for (const auto& tag : YAML::LoadFile(Source("gateway/openapi-overlay.yaml"))["tags"]) {
    for (const auto& service : tag["services"]) overlay.names.insert(absl::StrCat(kPackage, service.as<std::string>()));
  }
  return {table, gateway, overlay};
}

// protos with one more file declaring service hotel.v1.<name>.
google::protobuf::FileDescriptorSet WithService(google::protobuf::FileDescriptorSet protos, const std::string& name) {
  auto* file = protos.add_file();
  file->set_name(absl::StrCat("hotel/v1/", name, ".proto"));
  file->set_package("hotel.v1");
  file->add_service()->set_name(name);
  return protos;
}

TEST(ServiceListsTest, EveryListHoldsTheServicesOfTheProtos) {
  const auto protos = Protos();
  ASSERT_GT(protos.file_size(), 10);
  const auto lists = TheLists();
  for (const ServiceList& list : lists) EXPECT_GT(list.names.size(), 10u) << list.where << " was not read";
  for (const std::string& problem : CheckServiceLists(protos, BoundServices(), lists)) ADD_FAILURE() << problem;
}

TEST(ServiceListsTest, ANewServiceWithRestBindingsIsNamedMissingFromEachList) {
  std::set<std::string> bound = BoundServices();
  bound.insert("hotel.v1.FakeService");
  const auto problems = CheckServiceLists(WithService(Protos(), "FakeService"), bound, TheLists());
  EXPECT_EQ(problems, (std::vector<std::string>{
                          "hotel.v1.FakeService is missing from app/services_table.cc",
                          "hotel.v1.FakeService is missing from gateway/internal/httpapi/services.go",
                          "hotel.v1.FakeService is missing from gateway/openapi-overlay.yaml (tags)",
                      }));
}

TEST(ServiceListsTest, ANewServiceWithoutRestBindingsBelongsInTheTableOnly) {
  const auto problems = CheckServiceLists(WithService(Protos(), "FakeService"), BoundServices(), TheLists());
  EXPECT_EQ(problems, (std::vector<std::string>{"hotel.v1.FakeService is missing from app/services_table.cc"}));
}

TEST(ServiceListsTest, ANameTheProtosDoNotDeclareIsNamed) {
  auto lists = TheLists();
  lists[1].names.insert("hotel.v1.GoneService");
  const auto problems = CheckServiceLists(Protos(), BoundServices(), lists);
  EXPECT_EQ(problems, (std::vector<std::string>{"gateway/internal/httpapi/services.go names hotel.v1.GoneService, "
                                                "which the protos do not declare"}));
}

}  // namespace
}  // namespace hotel::app
