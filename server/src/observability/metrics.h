// Per-RPC request counts, error counts by code and latency histograms, plus connection-pool
// gauges, rendered in the Prometheus text format. The gateway's /metrics appends this text to
// its own, so one scrape per pod sees both processes.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "api/admission.h"
#include "common/metric_registry.h"
#include "db/pool.h"

namespace hotel {

inline constexpr std::array<double, 14> kLatencyBuckets = {.0005, .001, .002, .005, .01, .025, .05,
                                                           .1,    .25,  .5,   1,    2.5, 5,    10};

struct RpcSeries {
  std::map<std::string, int64_t> count_by_code;                 // gRPC code name → requests
  std::array<int64_t, kLatencyBuckets.size()> bucket_counts{};  // non-cumulative
  int64_t count = 0;
  double sum_seconds = 0;
};

class Metrics final : public MetricRegistry {
 public:
  void RecordRpc(absl::string_view method, absl::string_view code, double seconds);
  // Pools to report, by name ("main", "health").
  void AddPool(std::string name, const db::ConnectionPool* pool);
  void AddGauge(std::string name, std::string help, std::function<double()> value) override;
  void AddFamily(std::string name, std::string help, std::string type, std::function<Samples()> samples) override;
  // The admission control to report: in flight, queued, limit, calls shed by reason, queue wait.
  void SetAdmission(const api::AdmissionControl* admission) { admission_ = admission; }
  std::string Render() const;

 private:
  const api::AdmissionControl* admission_ = nullptr;
  mutable absl::Mutex mu_;
  std::map<std::string, RpcSeries, std::less<>> rpcs_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::string, const db::ConnectionPool*>> pools_;
  struct Gauge {
    std::string name;
    std::string help;
    std::function<double()> value;
  };
  std::vector<Gauge> gauges_;
  struct Family {
    std::string name;
    std::string help;
    std::string type;
    std::function<Samples()> samples;
  };
  std::vector<Family> families_;
};

// Pure renderer, unit-tested against the format's rules.
std::string RenderPrometheus(const std::map<std::string, RpcSeries, std::less<>>& rpcs,
                             const std::vector<std::pair<std::string, db::PoolStats>>& pools,
                             absl::string_view version);

// Pure renderer of the admission control's series.
std::string RenderAdmission(const api::AdmissionStats& stats);

}  // namespace hotel
