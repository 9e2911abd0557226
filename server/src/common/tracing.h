// Spans for a trace backend (docs/operations.md, "Tracing"): what a span records and the one
// exporter it goes to when it ends. Off unless main.cc installs an exporter
// (observability/otlp_exporter.h, from the OTEL_* variables): then nothing is recorded and a trace
// that starts here is not sampled, as before. A span is recorded only when its trace is sampled:
// parent-based, a caller's sampled flag decides; a trace that starts here is sampled by the ratio
// of its trace id (OpenTelemetry's TraceIdRatioBased).
//
// Where spans start: the RPC observer (each RPC, observability/rpc_observer.cc), the call runner
// (the admission wait, api/call_runner.cc), the connection pool (each unit of work and statement,
// db/pool.cc), the webhook sender (each delivery) and the change hub (each fan-out): never handlers.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/trace_context.h"

namespace hotel {

// OTLP's numbering.
enum class SpanKind { kInternal = 1, kServer = 2, kClient = 3, kProducer = 4, kConsumer = 5 };

using AttributeValue = std::variant<std::string, int64_t, double, bool>;
// Keys are the conventions' names, string literals: not copied into every span.
using Attributes = std::vector<std::pair<absl::string_view, AttributeValue>>;

// A link to another trace; span_id all zeros when only the trace is known (the change log keeps
// the trace id of the request that made a change), which OpenTelemetry allows with attributes.
struct SpanLink {
  std::array<char, kTraceIdLength> trace_id;
  std::array<char, kSpanIdLength> span_id;
  Attributes attributes;
};

// Links a span keeps at most (a webhook batch or a fan-out may carry many changes).
inline constexpr size_t kMaxLinksPerSpan = 32;

// One ended span, as it is exported.
struct SpanData {
  std::array<char, kTraceIdLength> trace_id;
  std::array<char, kSpanIdLength> span_id;
  std::array<char, kSpanIdLength> parent_span_id;
  bool has_parent = false;
  std::string name;
  SpanKind kind = SpanKind::kInternal;
  int64_t start_unix_nanos = 0;
  int64_t end_unix_nanos = 0;
  Attributes attributes;
  std::vector<SpanLink> links;
  bool error = false;
  std::string status_message;
};

// Where ended spans go. Export must never block: a full queue drops.
class SpanExporter {
 public:
  virtual ~SpanExporter() = default;
  virtual void Export(std::unique_ptr<SpanData> span) = 0;
};

// Installed once, before serving (nullptr: off); root_ratio samples the traces that start here.
void InstallTracing(SpanExporter* exporter, double root_ratio);
bool TracingEnabled();
// Whether a trace that starts here (with this id) is sampled: never while tracing is off.
bool SampleNewTrace(absl::string_view trace_id);
// Hands an ended span to the exporter (dropped while tracing is off).
void ExportSpan(std::unique_ptr<SpanData> span);

// A span with a fresh id as a child of parent (a call's span), started at start_unix_nanos;
// nullptr when it would not be recorded. For spans whose times are known only afterwards.
std::unique_ptr<SpanData> NewChildSpan(const RequestSpan& parent, absl::string_view name, SpanKind kind,
                                       int64_t start_unix_nanos);

// A span in progress on this thread, from construction to destruction (when it ends and is
// exported). The innermost Span in scope is the parent of the next one.
class Span {
 public:
  // A child of the innermost Span in scope on this thread, else of the current call's span
  // (common/call_context.h); records nothing when there is neither or its trace is not sampled.
  explicit Span(absl::string_view name, SpanKind kind = SpanKind::kInternal);
  // The root of a new trace, for work no call started (webhook deliveries, the change feed's
  // fan-out), sampled by the root ratio.
  struct NewTrace {};
  Span(NewTrace, absl::string_view name, SpanKind kind = SpanKind::kInternal);
  ~Span();
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;

  bool recording() const { return data_ != nullptr; }
  // key: a string literal (Attributes).
  void SetAttribute(absl::string_view key, AttributeValue value);
  // A link to a trace of which only the id is known (32 lowercase hex digits; others are ignored).
  void AddTraceLink(absl::string_view trace_id, Attributes attributes);
  void SetError(absl::string_view message);

 private:
  std::unique_ptr<SpanData> data_;  // null when not recording
  Span* outer_;
};

}  // namespace hotel
