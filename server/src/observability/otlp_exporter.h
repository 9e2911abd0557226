// The server's span exporter (docs/operations.md, "Tracing"): OTLP over HTTP with protobuf
// bodies (the opentelemetry-proto messages, server/third_party), POSTed with libcurl by one
// background thread in batches. Ended spans wait in a bounded queue; when it is full a span is
// dropped and counted, so a slow or absent backend never blocks or slows a request. A failed
// export drops its batch (counted too); the next batch tries again, so export resumes by itself
// when the backend is back. Configured by OpenTelemetry's standard variables; off when no
// endpoint is set. Why not the OpenTelemetry C++ SDK: docs/decisions.md, "Exported traces".
#pragma once

#include <curl/curl.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/metric_registry.h"
#include "common/tracing.h"

namespace hotel {

struct OtlpOptions {
  std::string traces_url;  // the full URL spans are POSTed to (…/v1/traces)
  std::vector<std::pair<std::string, std::string>> headers;
  // Resource attributes: service.name first, then OTEL_RESOURCE_ATTRIBUTES.
  std::vector<std::pair<std::string, std::string>> resource;
  double sampler_ratio = 1.0;  // of the traces that start here (parent-based: callers decide theirs)
  size_t max_queue_size = 2048;
  size_t max_export_batch_size = 512;
  absl::Duration schedule_delay = absl::Seconds(5);
  absl::Duration export_timeout = absl::Seconds(10);
};

// From OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as it is) or OTEL_EXPORTER_OTLP_ENDPOINT (+
// "/v1/traces"), OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL (only http/protobuf), _HEADERS, _TIMEOUT,
// OTEL_SERVICE_NAME (default "hotel-server"), OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and
// _ARG (parentbased_traceidratio with 1.0 by default), OTEL_BSP_* (queue, batch, delay).
// nullopt when tracing is off: no endpoint, OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none.
// INVALID_ARGUMENT naming the variable for a value it cannot use.
absl::StatusOr<std::optional<OtlpOptions>> OtlpOptionsFromEnvironment(const char* (*getenv)(const char*));

// A serialized opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest of spans, under
// one resource and the instrumentation scope "hotel-server" (pure; unit-tested).
std::string SerializeExportRequest(const std::vector<std::unique_ptr<SpanData>>& spans,
                                   const std::vector<std::pair<std::string, std::string>>& resource);

struct OtlpExporterStats {
  int64_t exported = 0;               // spans the backend accepted
  int64_t dropped_queue_full = 0;     // spans dropped on arrival: the queue was full
  int64_t dropped_export_failed = 0;  // spans of batches the backend did not accept
  int64_t export_failures = 0;        // failed POSTs
  int64_t queued = 0;                 // spans waiting now
};

class OtlpExporter : public SpanExporter {
 public:
  explicit OtlpExporter(OtlpOptions options);
  ~OtlpExporter() override;  // exports what is queued (one attempt), then joins
  OtlpExporter(const OtlpExporter&) = delete;
  OtlpExporter& operator=(const OtlpExporter&) = delete;

  // Queues span, or drops it when the queue is full: never waits.
  void Export(std::unique_ptr<SpanData> span) override;
  OtlpExporterStats Stats() const;
  // Spans exported and dropped, and the queue's length.
  void RegisterMetrics(MetricRegistry& metrics) const;

 private:
  void Run();
  // POSTs one batch with the exporter thread's handle; true when the backend answered 2xx.
  bool Post(CURL* curl, const std::string& body);

  const OtlpOptions options_;
  mutable absl::Mutex mu_;
  std::deque<std::unique_ptr<SpanData>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  OtlpExporterStats stats_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace hotel
