#include "observability/metrics.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hotel {
namespace {

std::string Label(absl::string_view value) { return LabelValue(value); }

std::string Number(double v) { return absl::StrFormat("%.9g", v); }

}  // namespace

void Metrics::RecordRpc(absl::string_view method, absl::string_view code, double seconds) {
  absl::MutexLock lock(&mu_);
  auto it = rpcs_.find(method);
  if (it == rpcs_.end()) it = rpcs_.emplace(std::string(method), RpcSeries{}).first;
  RpcSeries& series = it->second;
  ++series.count_by_code[std::string(code)];
  ++series.count;
  series.sum_seconds += seconds;
  for (size_t i = 0; i < kLatencyBuckets.size(); ++i) {
    if (seconds <= kLatencyBuckets[i]) {
      ++series.bucket_counts[i];
      break;
    }
  }
}

void Metrics::AddPool(std::string name, const db::ConnectionPool* pool) { pools_.emplace_back(std::move(name), pool); }

void Metrics::AddGauge(std::string name, std::string help, std::function<double()> value) {
  gauges_.push_back({std::move(name), std::move(help), std::move(value)});
}

void Metrics::AddFamily(std::string name, std::string help, std::string type, std::function<Samples()> samples) {
  families_.push_back({std::move(name), std::move(help), std::move(type), std::move(samples)});
}

std::string Metrics::Render() const {
  std::vector<std::pair<std::string, db::PoolStats>> pools;
  for (const auto& [name, pool] : pools_) pools.emplace_back(name, pool->Stats());
  std::string out;
  {
    absl::MutexLock lock(&mu_);
    out = RenderPrometheus(rpcs_, pools, HOTEL_VERSION);
  }
  if (admission_ != nullptr) out += RenderAdmission(admission_->Stats());
  for (const Gauge& gauge : gauges_) {
    // %.17g: exact for counts and positions (StrAppend's six digits would round 12345678).
    absl::StrAppend(&out, "# HELP ", gauge.name, " ", gauge.help, "\n# TYPE ", gauge.name, " gauge\n", gauge.name, " ",
                    absl::StrFormat("%.17g", gauge.value()), "\n");
  }
  for (const Family& family : families_) {
    absl::StrAppend(&out, "# HELP ", family.name, " ", family.help, "\n# TYPE ", family.name, " ", family.type, "\n");
    for (const auto& [labels, value] : family.samples()) {
      absl::StrAppend(&out, family.name, "{", labels, "} ", absl::StrFormat("%.17g", value), "\n");
    }
  }
  return out;
}

std::string RenderAdmission(const api::AdmissionStats& stats) {
  std::string out;
  absl::StrAppend(
      &out,
      "# HELP hotel_server_requests_shed_total Calls refused by admission control, by reason: queue_full "
      "(no room to wait), budget (its deadline could not be met: refused on arrival), queue_timeout (no slot "
      "while its deadline could still be met), deadline (the caller's deadline passed while waiting).\n# TYPE "
      "hotel_server_requests_shed_total counter\n",
      "hotel_server_requests_shed_total{reason=\"queue_full\"} ", stats.shed_queue_full_total, "\n",
      "hotel_server_requests_shed_total{reason=\"budget\"} ", stats.shed_budget_total, "\n",
      "hotel_server_requests_shed_total{reason=\"queue_timeout\"} ", stats.shed_queue_timeout_total, "\n",
      "hotel_server_requests_shed_total{reason=\"deadline\"} ", stats.deadline_in_queue_total, "\n");
  absl::StrAppend(&out, "# HELP hotel_server_requests_admitted_total Calls admitted by admission control.\n",
                  "# TYPE hotel_server_requests_admitted_total counter\n", "hotel_server_requests_admitted_total ",
                  stats.admitted_total, "\n");
  absl::StrAppend(&out, "# HELP hotel_server_requests_in_flight Calls being served now (streams excluded).\n",
                  "# TYPE hotel_server_requests_in_flight gauge\n", "hotel_server_requests_in_flight ", stats.in_flight,
                  "\n");
  absl::StrAppend(&out, "# HELP hotel_server_requests_queued Calls waiting for a slot now.\n",
                  "# TYPE hotel_server_requests_queued gauge\n", "hotel_server_requests_queued ", stats.queued, "\n");
  absl::StrAppend(&out, "# HELP hotel_server_admission_limit Calls that may be served at once now.\n",
                  "# TYPE hotel_server_admission_limit gauge\n", "hotel_server_admission_limit ", stats.limit, "\n");
  absl::StrAppend(&out,
                  "# HELP hotel_server_queue_wait_seconds Time calls waited for a slot (calls that found one "
                  "free at once are not counted).\n# TYPE hotel_server_queue_wait_seconds histogram\n");
  int64_t cumulative = 0;
  for (size_t i = 0; i < api::kQueueWaitBuckets.size(); ++i) {
    cumulative += stats.queue_wait_buckets[i];
    absl::StrAppend(&out, "hotel_server_queue_wait_seconds_bucket{le=\"", Number(api::kQueueWaitBuckets[i]), "\"} ",
                    cumulative, "\n");
  }
  absl::StrAppend(&out, "hotel_server_queue_wait_seconds_bucket{le=\"+Inf\"} ", stats.queue_wait_count, "\n",
                  "hotel_server_queue_wait_seconds_sum ", Number(stats.queue_wait_seconds_total), "\n",
                  "hotel_server_queue_wait_seconds_count ", stats.queue_wait_count, "\n");
  return out;
}

std::string RenderPrometheus(const std::map<std::string, RpcSeries, std::less<>>& rpcs,
                             const std::vector<std::pair<std::string, db::PoolStats>>& pools,
                             absl::string_view version) {
  std::string out;
  absl::StrAppend(&out, "# HELP hotel_server_build_info Build information; always 1.\n",
                  "# TYPE hotel_server_build_info gauge\n", "hotel_server_build_info{version=\"", Label(version),
                  "\"} 1\n");

  absl::StrAppend(&out, "# HELP hotel_server_rpcs_total RPCs handled, by method and gRPC status code.\n",
                  "# TYPE hotel_server_rpcs_total counter\n");
  for (const auto& [method, series] : rpcs) {
    for (const auto& [code, count] : series.count_by_code) {
      absl::StrAppend(&out, "hotel_server_rpcs_total{method=\"", Label(method), "\",code=\"", Label(code), "\"} ",
                      count, "\n");
    }
  }

  absl::StrAppend(&out, "# HELP hotel_server_rpc_duration_seconds RPC latency by method.\n",
                  "# TYPE hotel_server_rpc_duration_seconds histogram\n");
  for (const auto& [method, series] : rpcs) {
    int64_t cumulative = 0;
    for (size_t i = 0; i < kLatencyBuckets.size(); ++i) {
      cumulative += series.bucket_counts[i];
      absl::StrAppend(&out, "hotel_server_rpc_duration_seconds_bucket{method=\"", Label(method), "\",le=\"",
                      Number(kLatencyBuckets[i]), "\"} ", cumulative, "\n");
    }
    absl::StrAppend(&out, "hotel_server_rpc_duration_seconds_bucket{method=\"", Label(method), "\",le=\"+Inf\"} ",
                    series.count, "\n");
    absl::StrAppend(&out, "hotel_server_rpc_duration_seconds_sum{method=\"", Label(method), "\"} ",
                    Number(series.sum_seconds), "\n");
    absl::StrAppend(&out, "hotel_server_rpc_duration_seconds_count{method=\"", Label(method), "\"} ", series.count,
                    "\n");
  }

  struct Gauge {
    const char* name;
    const char* type;
    const char* help;
    std::function<double(const db::PoolStats&)> value;
  };
  const std::vector<Gauge> gauges = {
      {"hotel_server_db_pool_size", "gauge", "Maximum connections of the pool.",
       [](const db::PoolStats& s) { return double(s.size); }},
      {"hotel_server_db_pool_open", "gauge", "Open connections.",
       [](const db::PoolStats& s) { return double(s.open); }},
      {"hotel_server_db_pool_in_use", "gauge", "Connections lent out.",
       [](const db::PoolStats& s) { return double(s.in_use); }},
      {"hotel_server_db_pool_acquired_total", "counter", "Connections handed out.",
       [](const db::PoolStats& s) { return double(s.acquired_total); }},
      {"hotel_server_db_pool_waits_total", "counter", "Acquisitions that waited for a free connection.",
       [](const db::PoolStats& s) { return double(s.waited_total); }},
      {"hotel_server_db_pool_wait_seconds_total", "counter", "Time spent waiting for a free connection.",
       [](const db::PoolStats& s) { return s.wait_seconds_total; }},
      {"hotel_server_db_conflict_retries_total", "counter",
       "Writes run again after PostgreSQL aborted them for a deadlock or serialization failure.",
       [](const db::PoolStats& s) { return double(s.conflict_retries_total); }},
  };
  for (const auto& g : gauges) {
    absl::StrAppend(&out, "# HELP ", g.name, " ", g.help, "\n# TYPE ", g.name, " ", g.type, "\n");
    for (const auto& [name, stats] : pools) {
      absl::StrAppend(&out, g.name, "{pool=\"", Label(name), "\"} ", Number(g.value(stats)), "\n");
    }
  }
  return out;
}

}  // namespace hotel
