// The server's start order (app/start_order.h): a failing migration stops the start before the
// port opens, and a list call made the first instant the port is open already carries a change
// cursor, answered without waiting for anything.
#include "app/start_order.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "api/change_cursor_interceptor.h"
#include "common/change_cursor.h"
#include "hotel/v1/rooms.grpc.pb.h"

namespace hotel::app {
namespace {

// Steps that record their names in ran and answer as told.
StartSteps Recorded(std::vector<std::string>& ran, absl::Status migrate, absl::Status feed = absl::OkStatus()) {
  auto step = [&ran](const char* name, absl::Status result) {
    return [&ran, name, result] {
      ran.push_back(name);
      return result;
    };
  };
  return {step("migrate", migrate), step("feed", feed), step("listen", absl::OkStatus()),
          [&ran] { ran.push_back("workers"); }};
}

TEST(StartOrderTest, AFailingMigrationStopsTheStartBeforeThePortOpens) {
  std::vector<std::string> ran;
  const absl::Status started = RunStartOrder(Recorded(ran, absl::FailedPreconditionError("migration 0031 failed")));
  EXPECT_EQ(started.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ran, std::vector<std::string>{"migrate"});
}

TEST(StartOrderTest, StepsRunInOrderAndAFailingFeedKeepsThePortClosed) {
  std::vector<std::string> ran;
  ASSERT_TRUE(RunStartOrder(Recorded(ran, absl::OkStatus())).ok());
  EXPECT_EQ(ran, (std::vector<std::string>{"migrate", "feed", "listen", "workers"}));

  ran.clear();
  EXPECT_FALSE(RunStartOrder(Recorded(ran, absl::OkStatus(), absl::UnavailableError("the log cannot be read"))).ok());
  EXPECT_EQ(ran, (std::vector<std::string>{"migrate", "feed"}));
}

class Rooms final : public v1::RoomService::CallbackService {
 public:
  grpc::ServerUnaryReactor* ListRooms(grpc::CallbackServerContext* context, const v1::ListRoomsRequest*,
                                      v1::ListRoomsResponse*) override {
    auto* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

TEST(StartOrderTest, AListCallTheFirstInstantAfterListeningCarriesACursorWithoutWaiting) {
  std::atomic<int64_t> feed_position = -1;  // -1: the feed has not read the log yet
  Rooms rooms;
  std::unique_ptr<grpc::Server> server;
  v1::ListRoomsResponse first;
  absl::Duration answered_in;
  const absl::Status started = RunStartOrder({
      .migrate = [] { return absl::OkStatus(); },
      .start_change_feed =
          [&] {
            feed_position = 17;  // the hub's first read of the log's head
            return absl::OkStatus();
          },
      .listen =
          [&] {
            grpc::ServerBuilder builder;
            int port = 0;
            builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
            builder.RegisterService(&rooms);
            std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
            // No fallback: the position is whatever the feed knows, with nothing to block on.
            interceptors.push_back(std::make_unique<api::ChangeCursorInterceptorFactory>([&] {
              const int64_t known = feed_position.load();
              return known < 0 ? std::nullopt : std::optional<int64_t>(known);
            }));
            builder.experimental().SetInterceptorCreators(std::move(interceptors));
            server = builder.BuildAndStart();
            if (!server) return absl::UnavailableError("cannot listen");
            // The first instant: before the workers start, the first call there is.
            auto stub = v1::RoomService::NewStub(
                grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()));
            grpc::ClientContext context;
            context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
            const absl::Time sent = absl::Now();
            const grpc::Status status = stub->ListRooms(&context, {}, &first);
            answered_in = absl::Now() - sent;
            return status.ok() ? absl::OkStatus() : absl::InternalError(status.error_message());
          },
      .start_workers = [] {},
  });
  ASSERT_TRUE(started.ok()) << started;
  EXPECT_EQ(first.change_cursor(), EncodeChangeCursor(17));
  EXPECT_LT(answered_in, absl::Seconds(2));  // a channel's connect and one call; no wait on the database
  server->Shutdown();
}

}  // namespace
}  // namespace hotel::app
