#include "common/trace_context.h"

#include <algorithm>
#include <cstring>

#include "absl/random/random.h"
#include "common/tracing.h"

namespace hotel {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

bool IsLowerHex(absl::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool IsAllZeros(absl::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == '0'; });
}

int HexValue(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }

}  // namespace

void RandomHexId(char* out, size_t length) {
  thread_local absl::BitGen random;
  do {
    for (size_t i = 0; i < length; i += 16) {
      uint64_t bits = absl::Uniform<uint64_t>(random);
      for (size_t j = i; j < std::min(length, i + 16); ++j, bits >>= 4) out[j] = kHexDigits[bits & 0xf];
    }
  } while (IsAllZeros({out, length}));
}

bool IsValidTraceId(absl::string_view text) {
  return text.size() == kTraceIdLength && IsLowerHex(text) && !IsAllZeros(text);
}

bool ParseTraceParent(absl::string_view value, TraceParent* out) {
  // "00-" + 32 + "-" + 16 + "-" + 2
  constexpr size_t kLength = 3 + kTraceIdLength + 1 + kSpanIdLength + 1 + 2;
  if (value.size() != kLength || value.substr(0, 3) != "00-") return false;
  const absl::string_view trace_id = value.substr(3, kTraceIdLength);
  const absl::string_view parent_id = value.substr(3 + kTraceIdLength + 1, kSpanIdLength);
  const absl::string_view flags = value.substr(kLength - 2);
  if (value[3 + kTraceIdLength] != '-' || value[kLength - 3] != '-') return false;
  if (!IsLowerHex(trace_id) || !IsLowerHex(parent_id) || !IsLowerHex(flags)) return false;
  if (IsAllZeros(trace_id) || IsAllZeros(parent_id)) return false;
  std::memcpy(out->trace_id, trace_id.data(), kTraceIdLength);
  std::memcpy(out->parent_id, parent_id.data(), kSpanIdLength);
  out->flags = static_cast<uint8_t>(HexValue(flags[0]) * 16 + HexValue(flags[1]));
  return true;
}

RequestSpan::RequestSpan(absl::string_view traceparent, absl::string_view request_id) {
  TraceParent parent;
  continued_ = ParseTraceParent(traceparent, &parent);
  if (continued_) {
    std::memcpy(trace_id_, parent.trace_id, kTraceIdLength);
    std::memcpy(parent_span_id_, parent.parent_id, kSpanIdLength);
    flags_ = parent.flags;
  } else {
    RandomHexId(trace_id_, kTraceIdLength);
    flags_ = SampleNewTrace(trace_id()) ? 1 : 0;
  }
  RandomHexId(span_id_, kSpanIdLength);
  request_id_length_ = std::min(request_id.size(), kMaxRequestIdLength);
  // An empty view may have no data (nullptr): memcpy must not see it.
  if (request_id_length_ > 0) std::memcpy(request_id_, request_id.data(), request_id_length_);
}

std::string RequestSpan::TraceParentHeader() const {
  std::string out = "00-";
  out.append(trace_id_, kTraceIdLength).append("-").append(span_id_, kSpanIdLength).append("-");
  out += kHexDigits[flags_ >> 4];
  out += kHexDigits[flags_ & 0xf];
  return out;
}

}  // namespace hotel
