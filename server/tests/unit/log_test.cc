// Pins the log line's shape (docs/operations.md, "Logs"): the gateway's Go test pins the same.
#include "common/log.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "common/call_context.h"

namespace hotel {
namespace {

absl::Time Noon() {
  return absl::FromCivil(absl::CivilSecond(2026, 11, 24, 12, 0, 5), absl::UTCTimeZone()) + absl::Milliseconds(42);
}

TEST(LogTest, GoldenLineOutsideARequest) {
  EXPECT_EQ(FormatLogLine(Noon(), Severity::kWarn, "change log prune failed", {{"error", "timeout \"x\""}}),
            R"({"timestamp":"2026-11-24T12:00:05.042Z","severity_text":"WARN","severity_number":13,)"
            R"("body":"change log prune failed","service.name":"hotel-server","error":"timeout \"x\""})");
}

TEST(LogTest, GoldenLineOfARequestCarriesItsIdsAndTypedNumbers) {
  const CallContext call{RequestSpan("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "req-1"), {}};
  const RequestSpan& span = *call.span;
  std::string line;
  {
    ScopedCallContext in_call(&call);
    line = FormatLogLine(Noon(), Severity::kInfo, "rpc",
                         {{"rpc.system", "grpc"},
                          {"rpc.service", "hotel.v1.RoomService"},
                          {"rpc.method", "GetRoom"},
                          {"rpc.grpc.status_code", 0},
                          {"duration_ms", 0.4554}});
  }
  EXPECT_EQ(line, std::string(R"({"timestamp":"2026-11-24T12:00:05.042Z","severity_text":"INFO","severity_number":9,)"
                              R"("body":"rpc","service.name":"hotel-server",)"
                              R"("trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":")") +
                      std::string(span.span_id()) +
                      R"(","request_id":"req-1","rpc.system":"grpc","rpc.service":"hotel.v1.RoomService",)"
                      R"("rpc.method":"GetRoom","rpc.grpc.status_code":0,"duration_ms":0.455})");
  EXPECT_EQ(CurrentRequestSpan(), nullptr);
}

TEST(LogTest, SeverityNumbersFollowOpenTelemetry) {
  EXPECT_NE(FormatLogLine(Noon(), Severity::kDebug, "m", {}).find(R"("severity_text":"DEBUG","severity_number":5)"),
            std::string::npos);
  EXPECT_NE(FormatLogLine(Noon(), Severity::kError, "m", {}).find(R"("severity_text":"ERROR","severity_number":17)"),
            std::string::npos);
}

TEST(TraceContextTest, AcceptsOnlyVersion00InLowercaseHexWithNonZeroIds) {
  TraceParent parsed;
  ASSERT_TRUE(ParseTraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", &parsed));
  EXPECT_EQ(absl::string_view(parsed.trace_id, kTraceIdLength), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(absl::string_view(parsed.parent_id, kSpanIdLength), "00f067aa0ba902b7");
  EXPECT_EQ(parsed.flags, 1);
  for (const char* bad : {
           "",
           "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",   // upper case
           "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",   // another version
           "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",   // the invalid version
           "00-00000000000000000000000000000000-00f067aa0ba902b7-01",   // zero trace id
           "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",   // zero parent id
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",  // trailing text
           "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01",   // misplaced dash
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",   // not hex
           "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
       }) {
    EXPECT_FALSE(ParseTraceParent(bad, &parsed)) << bad;
  }
}

TEST(TraceContextTest, ContinuesAValidTraceWithANewSpan) {
  RequestSpan span("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "r");
  EXPECT_TRUE(span.continued());
  EXPECT_EQ(span.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(span.parent_span_id(), "00f067aa0ba902b7");
  EXPECT_NE(span.span_id(), "00f067aa0ba902b7");
  EXPECT_EQ(span.TraceParentHeader(), absl::StrCat("00-4bf92f3577b34da6a3ce929d0e0e4736-", span.span_id(), "-01"));
}

TEST(TraceContextTest, StartsAFreshTraceForAMissingOrMalformedOne) {
  for (const char* value : {"", "00-XYZ-<script>-01"}) {
    RequestSpan span(value, std::string(300, 'r'));
    EXPECT_FALSE(span.continued());
    EXPECT_TRUE(span.parent_span_id().empty());
    TraceParent reparsed;
    ASSERT_TRUE(ParseTraceParent(span.TraceParentHeader(), &reparsed)) << span.TraceParentHeader();
    EXPECT_TRUE(absl::EndsWith(span.TraceParentHeader(), "-00"));
    EXPECT_EQ(span.request_id().size(), kMaxRequestIdLength);
  }
  EXPECT_NE(RequestSpan("", "").trace_id(), RequestSpan("", "").trace_id());
}

}  // namespace
}  // namespace hotel
