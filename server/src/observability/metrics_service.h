// hotel.v1.MetricsService: hands the server's Prometheus text to the gateway.
#pragma once

#include "hotel/v1/metrics.grpc.pb.h"
#include "observability/metrics.h"

namespace hotel {

class MetricsServiceImpl final : public hotel::v1::MetricsService::Service {
 public:
  explicit MetricsServiceImpl(const Metrics& metrics) : metrics_(metrics) {}
  grpc::Status GetMetrics(grpc::ServerContext*, const hotel::v1::GetMetricsRequest*,
                          hotel::v1::GetMetricsResponse* response) override {
    response->set_prometheus_text(metrics_.Render());
    return grpc::Status::OK;
  }

 private:
  const Metrics& metrics_;
};

}  // namespace hotel
