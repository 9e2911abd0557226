#include <gtest/gtest.h>

#include "observability/metrics.h"
#include "observability/rpc_observer.h"

namespace hotel {
namespace {

TEST(RpcLogPolicy, ErrorsAndSlowCallsAlwaysOneInNOfTheRest) {
  Metrics metrics;
  RpcObserverFactory observer(metrics, {}, RpcLogPolicy{100, absl::Milliseconds(100)});
  int logged = 0;
  for (int i = 0; i < 1000; ++i) logged += observer.ShouldLog(grpc::StatusCode::OK, absl::Milliseconds(1), false);
  EXPECT_EQ(logged, 10);
  EXPECT_TRUE(observer.ShouldLog(grpc::StatusCode::INTERNAL, absl::Milliseconds(1), false));
  EXPECT_TRUE(observer.ShouldLog(grpc::StatusCode::NOT_FOUND, absl::Milliseconds(1), false));
  EXPECT_TRUE(observer.ShouldLog(grpc::StatusCode::OK, absl::Milliseconds(100), false));
}

TEST(RpcLogPolicy, OneEveryCallOrNone) {
  Metrics metrics;
  RpcObserverFactory every(metrics, {}, RpcLogPolicy{1, absl::Seconds(1)});
  RpcObserverFactory none(metrics, {}, RpcLogPolicy{0, absl::Seconds(1)});
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(every.ShouldLog(grpc::StatusCode::OK, absl::Milliseconds(1), false));
    EXPECT_FALSE(none.ShouldLog(grpc::StatusCode::OK, absl::Milliseconds(1), false));
  }
  EXPECT_TRUE(none.ShouldLog(grpc::StatusCode::UNAVAILABLE, absl::Milliseconds(1), false));
}

TEST(RpcLogPolicy, RefusalsGetNoLineOfTheirOwn) {
  Metrics metrics;
  RpcObserverFactory observer(metrics, {}, RpcLogPolicy{1, absl::Milliseconds(1)});
  // Slow, UNAVAILABLE and logged every call otherwise: a refusal still gets no line (the summary
  // line, once a second, is written by ShouldLog itself).
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(observer.ShouldLog(grpc::StatusCode::UNAVAILABLE, absl::Milliseconds(5), true));
  }
}

}  // namespace
}  // namespace hotel
