// The change-cursor interceptor through a real gRPC server and client: every list response gets
// the feed's position sampled when the request arrived, without its handler doing anything;
// responses without a change_cursor field, and positions not known yet, are left alone.
#include "api/change_cursor_interceptor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <optional>

#include "common/change_cursor.h"
#include "hotel/v1/rooms.grpc.pb.h"
#include "test_server.h"

namespace hotel::api {
namespace {

class Rooms final : public hotel::v1::RoomService::CallbackService {
 public:
  grpc::ServerUnaryReactor* ListRooms(grpc::CallbackServerContext* context, const hotel::v1::ListRoomsRequest*,
                                      hotel::v1::ListRoomsResponse* response) override {
    response->add_data()->set_number("305");
    response->set_next_page_token("next");
    return Finish(context);
  }
  grpc::ServerUnaryReactor* GetRoom(grpc::CallbackServerContext* context, const hotel::v1::GetRoomRequest*,
                                    hotel::v1::Room* room) override {
    room->set_number("305");
    return Finish(context);
  }

 private:
  static grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* context) {
    auto* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

TEST(ChangeCursorInterceptorTest, StampsListResponsesWithThePositionKnownWhenTheRequestArrived) {
  std::atomic<int64_t> position = -1;  // -1: not known yet
  Rooms rooms;
  testing::TestServer::Interceptors interceptors;
  interceptors.push_back(std::make_unique<ChangeCursorInterceptorFactory>([&]() -> std::optional<int64_t> {
    const int64_t known = position.load();
    return known < 0 ? std::nullopt : std::optional<int64_t>(known);
  }));
  testing::TestServer server({&rooms}, std::move(interceptors));
  auto stub = hotel::v1::RoomService::NewStub(server.channel());

  hotel::v1::ListRoomsResponse list;
  grpc::ClientContext unknown;
  ASSERT_TRUE(stub->ListRooms(&unknown, {}, &list).ok());
  EXPECT_EQ(list.change_cursor(), "");

  position = 41;
  grpc::ClientContext known;
  ASSERT_TRUE(stub->ListRooms(&known, {}, &list).ok());
  EXPECT_EQ(list.change_cursor(), EncodeChangeCursor(41));
  ASSERT_EQ(list.data_size(), 1);  // the handler's answer is intact around it
  EXPECT_EQ(list.data(0).number(), "305");
  EXPECT_EQ(list.next_page_token(), "next");

  hotel::v1::Room room;
  grpc::ClientContext get;
  ASSERT_TRUE(stub->GetRoom(&get, {}, &room).ok());
  hotel::v1::Room expected;
  expected.set_number("305");
  EXPECT_EQ(room.SerializeAsString(), expected.SerializeAsString());  // nothing appended

  EXPECT_EQ(ChangeCursorFieldNumber("/hotel.v1.RoomService/ListRooms"), 3);
  EXPECT_EQ(ChangeCursorFieldNumber("/hotel.v1.RoomService/GetRoom"), 0);
  EXPECT_EQ(ChangeCursorFieldNumber("/hotel.v1.Nowhere/Method"), 0);
}

}  // namespace
}  // namespace hotel::api
