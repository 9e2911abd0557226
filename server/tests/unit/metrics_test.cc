#include "observability/metrics.h"

#include <gtest/gtest.h>

#include "observability/rpc_observer.h"

namespace hotel {
namespace {

TEST(Metrics, DatabaseUpFollowsItsSource) {
  Metrics metrics;
  EXPECT_EQ(metrics.Render().find("hotel_server_database_up"), std::string::npos);
  bool up = true;
  metrics.AddGauge("hotel_server_database_up", "Whether the database is reachable.", [&up] { return up ? 1 : 0; });
  EXPECT_NE(metrics.Render().find("# TYPE hotel_server_database_up gauge\nhotel_server_database_up 1\n"),
            std::string::npos);
  up = false;
  EXPECT_NE(metrics.Render().find("hotel_server_database_up 0\n"), std::string::npos);
}

TEST(Metrics, GaugesAreReadAtEachScrape) {
  Metrics metrics;
  int watchers = 3;
  metrics.AddGauge("hotel_server_change_watchers", "Watch streams.", [&watchers] { return watchers; });
  EXPECT_NE(metrics.Render().find("# HELP hotel_server_change_watchers Watch streams.\n"
                                  "# TYPE hotel_server_change_watchers gauge\nhotel_server_change_watchers 3\n"),
            std::string::npos);
  watchers = 12345678;  // a change log position: every digit, no exponent
  EXPECT_NE(metrics.Render().find("hotel_server_change_watchers 12345678\n"), std::string::npos);
}

TEST(Metrics, HistogramBucketsAreCumulative) {
  Metrics metrics;
  metrics.RecordRpc("/hotel.v1.RoomService/GetRoom", "OK", 0.0007);
  metrics.RecordRpc("/hotel.v1.RoomService/GetRoom", "OK", 0.003);
  metrics.RecordRpc("/hotel.v1.RoomService/GetRoom", "NOT_FOUND", 20);
  std::string text = metrics.Render();
  const std::string m = "method=\"/hotel.v1.RoomService/GetRoom\"";
  EXPECT_NE(text.find("hotel_server_rpcs_total{" + m + ",code=\"OK\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("hotel_server_rpcs_total{" + m + ",code=\"NOT_FOUND\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("hotel_server_rpc_duration_seconds_bucket{" + m + ",le=\"0.0005\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("hotel_server_rpc_duration_seconds_bucket{" + m + ",le=\"0.001\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("hotel_server_rpc_duration_seconds_bucket{" + m + ",le=\"0.005\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("hotel_server_rpc_duration_seconds_bucket{" + m + ",le=\"10\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("hotel_server_rpc_duration_seconds_bucket{" + m + ",le=\"+Inf\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("hotel_server_rpc_duration_seconds_count{" + m + "} 3\n"), std::string::npos);
}

TEST(Metrics, LabelValuesAreEscaped) {
  std::map<std::string, RpcSeries, std::less<>> rpcs;
  rpcs["a\"b\\c\nd"].count_by_code["OK"] = 1;
  std::string text = RenderPrometheus(rpcs, {}, "1.0.0");
  EXPECT_NE(text.find(R"(method="a\"b\\c\nd")"), std::string::npos) << text;
}

TEST(Metrics, PoolGaugesPerPool) {
  db::PoolStats stats;
  stats.size = 8;
  stats.in_use = 3;
  std::string text = RenderPrometheus({}, {{"main", stats}}, "1.0.0");
  EXPECT_NE(text.find("hotel_server_db_pool_size{pool=\"main\"} 8\n"), std::string::npos);
  EXPECT_NE(text.find("hotel_server_db_pool_in_use{pool=\"main\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("hotel_server_build_info{version=\"1.0.0\"} 1\n"), std::string::npos);
}

TEST(Metrics, CodeNames) {
  EXPECT_STREQ(GrpcCodeName(grpc::StatusCode::UNAVAILABLE), "UNAVAILABLE");
  EXPECT_STREQ(GrpcCodeName(grpc::StatusCode::OK), "OK");
}

}  // namespace
}  // namespace hotel
