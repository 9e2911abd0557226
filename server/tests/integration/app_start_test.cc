// The server's start order with its real parts (app/app.h): a migration that cannot run stops the
// start before the port opens, and the first list call after Start carries a change cursor,
// answered without waiting for anything.
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "app/app.h"
#include "hotel/v1/rooms.grpc.pb.h"
#include "test_database.h"

namespace hotel::app {
namespace {

// A loopback port nobody listens on now.
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

bool Accepts(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  const bool connected = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  close(fd);
  return connected;
}

Settings SettingsFor(std::vector<std::string> args) {
  args.insert(args.end(), {"--room-cache-size", "0", "--webhook-senders", "0", "--health-interval", "200ms"});
  auto settings = LoadSettings(args, [](const char*) -> const char* { return nullptr; });
  EXPECT_TRUE(settings.ok()) << settings.status();
  return *std::move(settings);
}

TEST(AppStartTest, AMigrationThatCannotRunStopsTheStartBeforeThePortOpens) {
  const int port = FreePort();
  const Settings settings = SettingsFor({"--listen", absl::StrCat("127.0.0.1:", port), "--database-url",
                                         "postgresql://nobody@127.0.0.1:1/none", "--connect-timeout", "200ms"});
  App app(settings);
  const absl::Status started = app.Start();
  EXPECT_FALSE(started.ok());
  EXPECT_NE(started.message().find("migrations failed"), absl::string_view::npos) << started;
  EXPECT_FALSE(Accepts(port));
}

TEST(AppStartTest, TheFirstListCallAfterStartCarriesAChangeCursorWithoutWaiting) {
  testing::TestDatabase& database = testing::TestDatabase::Get();
  const Settings settings = SettingsFor({"--listen", "127.0.0.1:0", "--database-url", database.url()});
  App app(settings);
  ASSERT_TRUE(app.Start().ok());
  auto stub = v1::RoomService::NewStub(grpc::CreateChannel(app.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::ListPropertiesResponse properties;
  const absl::Time sent = absl::Now();
  const grpc::Status status = stub->ListProperties(&context, {}, &properties);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_LT(absl::Now() - sent, absl::Seconds(2));
  EXPECT_FALSE(properties.change_cursor().empty());
  app.Drain();
  app.Stop();
  app.Wait();
}

}  // namespace
}  // namespace hotel::app
