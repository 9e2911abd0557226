// The call runner through a real gRPC server and client on loopback: admission refuses beyond
// its limit and queue with a retry pushback, probes answer while every slot is taken, default
// deadlines follow the method's idempotency_level, and a call's body runs under the span the
// RPC observer started from the caller's traceparent.
#include "api/call_runner.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "hotel/v1/health.grpc.pb.h"
#include "hotel/v1/rooms.grpc.pb.h"
#include "observability/metrics.h"
#include "observability/rpc_observer.h"
#include "test_server.h"

namespace hotel::api {
namespace {

// GetRoom (a read) and CreateRoom (a write) whose bodies record what they ran under and wait for
// the test's word; GetLiveness is a probe.
class RecordingRooms final : public hotel::v1::RoomService::CallbackService {
 public:
  explicit RecordingRooms(CallRunner& calls) : calls_(calls) {}

  grpc::ServerUnaryReactor* GetRoom(grpc::CallbackServerContext* context, const hotel::v1::GetRoomRequest* request,
                                    hotel::v1::Room*) override {
    return calls_.Run(context, *request, [this] { return Body(); });
  }
  grpc::ServerUnaryReactor* CreateRoom(grpc::CallbackServerContext* context,
                                       const hotel::v1::CreateRoomRequest* request, hotel::v1::Room*) override {
    return calls_.Run(context, *request, [this] { return Body(); });
  }

  absl::Notification entered;  // a body is running
  absl::Notification release;  // bodies may return
  absl::Mutex mu;
  absl::Duration time_left ABSL_GUARDED_BY(mu);
  std::string trace_id ABSL_GUARDED_BY(mu);

 private:
  absl::Status Body() {
    {
      absl::MutexLock lock(&mu);
      time_left = RequestTimeLeft();
      const RequestSpan* span = CurrentRequestSpan();
      trace_id = span != nullptr ? std::string(span->trace_id()) : "";
    }
    if (!entered.HasBeenNotified()) entered.Notify();
    release.WaitForNotification();
    return absl::OkStatus();
  }
  CallRunner& calls_;
};

class Probes final : public hotel::v1::HealthService::CallbackService {
 public:
  explicit Probes(CallRunner& calls) : calls_(calls) {}
  grpc::ServerUnaryReactor* GetLiveness(grpc::CallbackServerContext* context, const hotel::v1::GetLivenessRequest*,
                                        hotel::v1::GetLivenessResponse*) override {
    return calls_.RunProbe(context, [] { return absl::OkStatus(); });
  }

 private:
  CallRunner& calls_;
};

class CallRunnerTest : public ::testing::Test {
 protected:
  void Start(AdmissionOptions admission, CallRunnerOptions options) {
    readiness_.MarkStarted(1);
    admission_.emplace(admission);
    calls_.emplace(readiness_, *admission_, options);
    rooms_.emplace(*calls_);
    probes_.emplace(*calls_);
    testing::TestServer::Interceptors interceptors;
    interceptors.push_back(
        std::make_unique<RpcObserverFactory>(metrics_, std::vector<std::string>{"hotel.v1.RoomService"}));
    server_.emplace(std::vector<grpc::Service*>{&*rooms_, &*probes_}, std::move(interceptors));
    ASSERT_NE(server_->port(), 0);
    room_stub_ = hotel::v1::RoomService::NewStub(server_->channel());
    health_stub_ = hotel::v1::HealthService::NewStub(server_->channel());
  }

  void TearDown() override {
    if (rooms_ && !rooms_->release.HasBeenNotified()) rooms_->release.Notify();
    server_.reset();
  }

  Readiness readiness_;
  Metrics metrics_;
  std::optional<AdmissionControl> admission_;
  std::optional<CallRunner> calls_;
  std::optional<RecordingRooms> rooms_;
  std::optional<Probes> probes_;
  std::optional<testing::TestServer> server_;
  std::unique_ptr<hotel::v1::RoomService::Stub> room_stub_;
  std::unique_ptr<hotel::v1::HealthService::Stub> health_stub_;
};

TEST_F(CallRunnerTest, RefusesBeyondItsLimitAndQueueWhileProbesStillAnswer) {
  Start({.limit = 1, .queue = 0}, {});
  // One call takes the only slot and holds it.
  grpc::ClientContext held_context;
  hotel::v1::GetRoomRequest request;
  hotel::v1::Room room;
  grpc::Status held_status;
  absl::Notification held_done;
  room_stub_->async()->GetRoom(&held_context, &request, &room, [&](grpc::Status status) {
    held_status = status;
    held_done.Notify();
  });
  ASSERT_TRUE(rooms_->entered.WaitForNotificationWithTimeout(absl::Seconds(10)));

  grpc::ClientContext refused_context;
  const grpc::Status refused = room_stub_->GetRoom(&refused_context, request, &room);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(refused.error_message().find("overloaded"), std::string::npos) << refused.error_message();
  const auto& trailers = refused_context.GetServerTrailingMetadata();
  auto pushback = trailers.find(kRetryPushbackHeader);
  ASSERT_NE(pushback, trailers.end());
  EXPECT_EQ(std::string(pushback->second.data(), pushback->second.size()), "1000");

  // A probe is exempt: it answers on its own thread while the slot is taken.
  grpc::ClientContext probe_context;
  probe_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  hotel::v1::GetLivenessResponse liveness;
  EXPECT_TRUE(health_stub_->GetLiveness(&probe_context, {}, &liveness).ok());

  rooms_->release.Notify();
  ASSERT_TRUE(held_done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_TRUE(held_status.ok()) << held_status.error_message();
  EXPECT_EQ(admission_->Stats().shed_queue_full_total, 1);
}

TEST_F(CallRunnerTest, DefaultDeadlinesFollowTheMethodsIdempotencyLevel) {
  Start({.limit = 4, .queue = 2}, {.read_timeout = absl::Seconds(3), .write_timeout = absl::Seconds(30)});
  rooms_->release.Notify();
  auto time_left = [&] {
    absl::MutexLock lock(&rooms_->mu);
    return rooms_->time_left;
  };
  hotel::v1::Room room;
  grpc::ClientContext read_context;
  ASSERT_TRUE(room_stub_->GetRoom(&read_context, {}, &room).ok());
  EXPECT_GT(time_left(), absl::Seconds(2));
  EXPECT_LE(time_left(), absl::Seconds(3));

  grpc::ClientContext write_context;
  ASSERT_TRUE(room_stub_->CreateRoom(&write_context, {}, &room).ok());
  EXPECT_GT(time_left(), absl::Seconds(20));
  EXPECT_LE(time_left(), absl::Seconds(30));

  // The caller's deadline wins when it is earlier.
  grpc::ClientContext short_context;
  short_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
  ASSERT_TRUE(room_stub_->CreateRoom(&short_context, {}, &room).ok());
  EXPECT_LE(time_left(), absl::Milliseconds(1100));  // gRPC rounds the timeout it sends up
}

TEST_F(CallRunnerTest, TheBodyRunsUnderTheCallersTraceAndNotBeforeTheServerHasStarted) {
  Start({.limit = 2, .queue = 1}, {});
  rooms_->release.Notify();
  hotel::v1::Room room;
  grpc::ClientContext traced;
  traced.AddMetadata("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  ASSERT_TRUE(room_stub_->GetRoom(&traced, {}, &room).ok());
  {
    absl::MutexLock lock(&rooms_->mu);
    EXPECT_EQ(rooms_->trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
  }
  // A second call without a traceparent gets a trace of its own, not the previous call's.
  grpc::ClientContext untraced;
  ASSERT_TRUE(room_stub_->GetRoom(&untraced, {}, &room).ok());
  {
    absl::MutexLock lock(&rooms_->mu);
    EXPECT_EQ(rooms_->trace_id.size(), kTraceIdLength);
    EXPECT_NE(rooms_->trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
  }

  Readiness not_started;
  CallRunner early(not_started, *admission_, {});
  EXPECT_EQ(early.CheckRequest(hotel::v1::GetRoomRequest()).code(), absl::StatusCode::kUnavailable);
}

TEST_F(CallRunnerTest, MethodsTheServerDoesNotServeShareOneMetricLabel) {
  Start({.limit = 2, .queue = 1}, {});
  grpc::GenericStub generic(server_->channel());
  for (int i = 0; i < 3; ++i) {
    grpc::ClientContext context;
    grpc::Slice empty("");
    grpc::ByteBuffer request(&empty, 1), response;
    grpc::Status status;
    absl::Notification done;
    generic.UnaryCall(&context, absl::StrCat("/hotel.v1.Nowhere", i, "/Method", std::string(200, 'x')), {}, &request,
                      &response, [&](grpc::Status s) {
                        status = s;
                        done.Notify();
                      });
    ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  }
  const std::string rendered = metrics_.Render();
  EXPECT_EQ(rendered.find("Nowhere"), std::string::npos);
  EXPECT_NE(rendered.find(kOtherMethod), std::string::npos);
}

}  // namespace
}  // namespace hotel::api
