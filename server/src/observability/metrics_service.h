// hotel.v1.MetricsService: hands the server's Prometheus text to the gateway.
#pragma once

#include "api/handle_rpc.h"
#include "hotel/v1/metrics.grpc.pb.h"
#include "observability/metrics.h"

namespace hotel {

class MetricsServiceImpl final : public hotel::v1::MetricsService::CallbackService {
 public:
  explicit MetricsServiceImpl(const Metrics& metrics) : metrics_(metrics) {}
  // Rendered from memory, on gRPC's thread.
  grpc::ServerUnaryReactor* GetMetrics(grpc::CallbackServerContext* context, const hotel::v1::GetMetricsRequest*,
                                       hotel::v1::GetMetricsResponse* response) override {
    response->set_prometheus_text(metrics_.Render());
    return api::Finish(context, absl::OkStatus());
  }

 private:
  const Metrics& metrics_;
};

}  // namespace hotel
