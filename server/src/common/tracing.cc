#include "common/tracing.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "absl/time/clock.h"
#include "common/call_context.h"

namespace hotel {
namespace {

std::atomic<SpanExporter*> installed_exporter{nullptr};
// TraceIdRatioBased's bound: a trace is sampled when the lower 63 bits of its id's last 8 bytes are
// below it.
std::atomic<uint64_t> root_bound{0};
thread_local Span* innermost = nullptr;

uint64_t HexToUint64(absl::string_view hex) {
  uint64_t value = 0;
  for (char c : hex) value = value * 16 + static_cast<uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  return value;
}

std::unique_ptr<SpanData> NewSpanData(absl::string_view name, SpanKind kind) {
  auto data = std::make_unique<SpanData>();
  RandomHexId(data->span_id.data(), kSpanIdLength);
  data->name = std::string(name);
  data->kind = kind;
  data->attributes.reserve(4);  // the most any span has but the RPC's (one allocation, not three)
  data->start_unix_nanos = absl::GetCurrentTimeNanos();
  return data;
}

}  // namespace

void InstallTracing(SpanExporter* exporter, double root_ratio) {
  const double ratio = std::clamp(root_ratio, 0.0, 1.0);
  root_bound.store(ratio >= 1.0 ? UINT64_MAX : static_cast<uint64_t>(ratio * 9223372036854775808.0),
                   std::memory_order_relaxed);
  installed_exporter.store(exporter, std::memory_order_release);
}

bool TracingEnabled() { return installed_exporter.load(std::memory_order_relaxed) != nullptr; }

bool SampleNewTrace(absl::string_view trace_id) {
  if (!TracingEnabled() || trace_id.size() != kTraceIdLength) return false;
  const uint64_t bound = root_bound.load(std::memory_order_relaxed);
  if (bound == UINT64_MAX) return true;
  return (HexToUint64(trace_id.substr(16)) >> 1) < bound;
}

void ExportSpan(std::unique_ptr<SpanData> span) {
  if (SpanExporter* exporter = installed_exporter.load(std::memory_order_acquire); exporter != nullptr) {
    exporter->Export(std::move(span));
  }
}

std::unique_ptr<SpanData> NewChildSpan(const RequestSpan& parent, absl::string_view name, SpanKind kind,
                                       int64_t start_unix_nanos) {
  if (!TracingEnabled() || !parent.sampled()) return nullptr;
  auto data = NewSpanData(name, kind);
  std::memcpy(data->trace_id.data(), parent.trace_id().data(), kTraceIdLength);
  std::memcpy(data->parent_span_id.data(), parent.span_id().data(), kSpanIdLength);
  data->has_parent = true;
  data->start_unix_nanos = start_unix_nanos;
  return data;
}

Span::Span(absl::string_view name, SpanKind kind) : outer_(innermost) {
  innermost = this;
  if (!TracingEnabled()) return;
  if (outer_ != nullptr) {
    if (!outer_->recording()) return;
    data_ = NewSpanData(name, kind);
    data_->trace_id = outer_->data_->trace_id;
    data_->parent_span_id = outer_->data_->span_id;
    data_->has_parent = true;
    return;
  }
  if (const RequestSpan* call = CurrentRequestSpan(); call != nullptr) {
    data_ = NewChildSpan(*call, name, kind, absl::GetCurrentTimeNanos());
  }
}

Span::Span(NewTrace, absl::string_view name, SpanKind kind) : outer_(innermost) {
  innermost = this;
  if (!TracingEnabled()) return;
  std::array<char, kTraceIdLength> trace_id;
  RandomHexId(trace_id.data(), kTraceIdLength);
  if (!SampleNewTrace({trace_id.data(), kTraceIdLength})) return;
  data_ = NewSpanData(name, kind);
  data_->trace_id = trace_id;
}

Span::~Span() {
  innermost = outer_;
  if (data_ == nullptr) return;
  data_->end_unix_nanos = absl::GetCurrentTimeNanos();
  ExportSpan(std::move(data_));
}

void Span::SetAttribute(absl::string_view key, AttributeValue value) {
  if (data_ != nullptr) data_->attributes.emplace_back(key, std::move(value));
}

void Span::AddTraceLink(absl::string_view trace_id, Attributes attributes) {
  if (data_ == nullptr || !IsValidTraceId(trace_id)) return;
  SpanLink& link = data_->links.emplace_back();
  std::memcpy(link.trace_id.data(), trace_id.data(), kTraceIdLength);
  link.span_id.fill('0');
  link.attributes = std::move(attributes);
}

void Span::SetError(absl::string_view message) {
  if (data_ == nullptr) return;
  data_->error = true;
  data_->status_message = std::string(message);
}

}  // namespace hotel
