// W3C Trace Context (https://www.w3.org/TR/trace-context/): the ids of one call's hop through
// this process. The RPC observer starts the server's span of each call from the caller's
// `traceparent` (or a fresh trace); the call carries it in its CallContext (common/call_context.h),
// so the log lines written while it runs carry its ids and the connection pool hands the trace id
// to the database in write transactions (migration 0013).
// Fixed-size buffers: starting a span allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace hotel {

inline constexpr size_t kTraceIdLength = 32;  // lowercase hex digits
inline constexpr size_t kSpanIdLength = 16;
inline constexpr size_t kMaxRequestIdLength = 128;

// A valid traceparent of version 00: "00-<trace id>-<parent id>-<flags>", lowercase hex, trace id
// and parent id not all zeros.
struct TraceParent {
  char trace_id[kTraceIdLength];
  char parent_id[kSpanIdLength];
  uint8_t flags = 0;
};

// Strict: anything but exactly a version-00 traceparent (upper case, other lengths, other
// versions, all-zero ids, extra characters) is refused, so a malformed value is never logged.
bool ParseTraceParent(absl::string_view value, TraceParent* out);

// Random lowercase hex ids, never all zeros (kTraceIdLength or kSpanIdLength digits into out).
void RandomHexId(char* out, size_t length);
// Whether text is a valid trace id: kTraceIdLength lowercase hex digits, not all zeros.
bool IsValidTraceId(absl::string_view text);

// The ids of one request's hop through this process.
class RequestSpan {
 public:
  // Continues the caller's trace when traceparent is valid (the caller's span becomes the parent),
  // else starts a fresh one (sampled as SampleNewTrace says: never while tracing is off); the span
  // id is always new. request_id is kept
  // up to kMaxRequestIdLength bytes.
  RequestSpan(absl::string_view traceparent, absl::string_view request_id);

  absl::string_view trace_id() const { return {trace_id_, kTraceIdLength}; }
  absl::string_view span_id() const { return {span_id_, kSpanIdLength}; }
  // The caller's span id; empty when the trace started here.
  absl::string_view parent_span_id() const { return {parent_span_id_, continued_ ? kSpanIdLength : 0}; }
  absl::string_view request_id() const { return {request_id_, request_id_length_}; }
  bool continued() const { return continued_; }
  // Sampled flag: the caller's, or for a trace that starts here the sampler's (common/tracing.h).
  bool sampled() const { return (flags_ & 1) != 0; }
  // This hop as a traceparent, for a response or a call to the next hop.
  std::string TraceParentHeader() const;

 private:
  char trace_id_[kTraceIdLength];
  char span_id_[kSpanIdLength];
  char parent_span_id_[kSpanIdLength];
  char request_id_[kMaxRequestIdLength];
  size_t request_id_length_ = 0;
  uint8_t flags_ = 0;
  bool continued_ = false;
};

}  // namespace hotel
