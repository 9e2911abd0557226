// Spans (common/tracing.h), the OTLP exporter's configuration and request body
// (observability/otlp_exporter.h), statement names (db/statement_names.h).
#include "common/tracing.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/call_context.h"
#include "db/statement_names.h"
#include "observability/otlp_exporter.h"
#include "opentelemetry/proto/collector/trace/v1/trace_service.pb.h"

namespace hotel {
namespace {

constexpr char kCallerTrace[] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

class Collected : public SpanExporter {
 public:
  void Export(std::unique_ptr<SpanData> span) override {
    absl::MutexLock lock(&mu_);
    spans.push_back(std::move(span));
  }
  absl::Mutex mu_;
  std::vector<std::unique_ptr<SpanData>> spans;
};

// Installs a collecting exporter for one test.
class TracingTest : public ::testing::Test {
 protected:
  void SetUp() override { InstallTracing(&collected_, 1.0); }
  void TearDown() override { InstallTracing(nullptr, 0); }
  std::string Id(const std::array<char, kSpanIdLength>& id) { return std::string(id.data(), id.size()); }
  Collected collected_;
};

TEST_F(TracingTest, SpansNestUnderTheCallAndEachOther) {
  const CallContext call{RequestSpan(kCallerTrace, ""), {}};
  {
    ScopedCallContext in_call(&call);
    Span transaction("db write");
    { Span statement("issues/insert_issue", SpanKind::kClient); }
  }
  ASSERT_EQ(collected_.spans.size(), 2u);
  const SpanData& statement = *collected_.spans[0];
  const SpanData& transaction = *collected_.spans[1];
  EXPECT_EQ(std::string(transaction.trace_id.data(), kTraceIdLength), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_TRUE(transaction.has_parent);
  EXPECT_EQ(Id(transaction.parent_span_id), std::string(call.span->span_id()));
  EXPECT_EQ(Id(statement.parent_span_id), Id(transaction.span_id));
  EXPECT_EQ(statement.kind, SpanKind::kClient);
  EXPECT_LE(transaction.start_unix_nanos, statement.start_unix_nanos);
  EXPECT_LE(statement.end_unix_nanos, transaction.end_unix_nanos);
}

TEST_F(TracingTest, NothingIsRecordedOutsideASampledTrace) {
  { Span alone("db read"); }  // no call: background work without a trace of its own
  const CallContext unsampled{RequestSpan("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", ""), {}};
  {
    ScopedCallContext in_call(&unsampled);
    Span transaction("db read");
    Span statement("rooms/select_room");
    EXPECT_FALSE(transaction.recording() || statement.recording());
  }
  EXPECT_TRUE(collected_.spans.empty());
}

TEST_F(TracingTest, ANewTraceIsARoot) {
  {
    Span delivery(Span::NewTrace{}, "webhook delivery", SpanKind::kProducer);
    delivery.AddTraceLink("4bf92f3577b34da6a3ce929d0e0e4736", {{"hotel.change.seq", int64_t{7}}});
    delivery.AddTraceLink("not a trace id", {});
    Span read("db read");
  }
  ASSERT_EQ(collected_.spans.size(), 2u);
  const SpanData& delivery = *collected_.spans[1];
  EXPECT_FALSE(delivery.has_parent);
  ASSERT_EQ(delivery.links.size(), 1u);
  EXPECT_EQ(Id(delivery.links[0].span_id), "0000000000000000");
  EXPECT_EQ(Id(collected_.spans[0]->parent_span_id), Id(delivery.span_id));
}

TEST(SamplerTest, TheRatioSamplesTracesStartingHereByTheirId) {
  Collected collected;
  EXPECT_FALSE(SampleNewTrace("ffffffffffffffff0000000000000000"));  // off: never
  InstallTracing(&collected, 0.5);
  // The lower 63 bits of the id's last 8 bytes against half of 2^63.
  EXPECT_TRUE(SampleNewTrace("ffffffffffffffff0000000000000001"));
  EXPECT_TRUE(SampleNewTrace("ffffffffffffffff7ffffffffffffffe"));
  EXPECT_FALSE(SampleNewTrace("ffffffffffffffff8000000000000000"));
  EXPECT_FALSE(SampleNewTrace("0000000000000000fffffffffffffffe"));
  InstallTracing(&collected, 1);
  EXPECT_TRUE(RequestSpan("", "").sampled());
  EXPECT_FALSE(RequestSpan("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", "").sampled());  // the caller's
  InstallTracing(nullptr, 0);
  EXPECT_FALSE(RequestSpan("", "").sampled());
}

absl::StatusOr<std::optional<OtlpOptions>> FromEnvironment(const std::map<std::string, std::string>& env) {
  static const std::map<std::string, std::string>* current;
  current = &env;
  return OtlpOptionsFromEnvironment([](const char* name) -> const char* {
    auto it = current->find(name);
    return it == current->end() ? nullptr : it->second.c_str();
  });
}

TEST(OtlpOptionsTest, OffWithoutAnEndpoint) {
  EXPECT_FALSE(FromEnvironment({})->has_value());
  EXPECT_FALSE(
      FromEnvironment({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"}, {"OTEL_SDK_DISABLED", "true"}})->has_value());
  EXPECT_FALSE(FromEnvironment({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"}, {"OTEL_TRACES_EXPORTER", "none"}})
                   ->has_value());
}

TEST(OtlpOptionsTest, TheStandardVariables) {
  auto options = FromEnvironment({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"},
                                  {"OTEL_EXPORTER_OTLP_HEADERS", "api-key=s%20ecret,tenant=a"},
                                  {"OTEL_RESOURCE_ATTRIBUTES", "service.name=ignored,deployment.environment.name=prod"},
                                  {"OTEL_SERVICE_NAME", "hotel-server-eu"},
                                  {"OTEL_TRACES_SAMPLER_ARG", "0.1"},
                                  {"OTEL_BSP_SCHEDULE_DELAY", "200"}});
  ASSERT_TRUE(options.ok() && options->has_value()) << options.status();
  const OtlpOptions& o = **options;
  EXPECT_EQ(o.traces_url, "http://collector:4318/v1/traces");
  EXPECT_EQ(o.headers, (std::vector<std::pair<std::string, std::string>>{{"api-key", "s ecret"}, {"tenant", "a"}}));
  ASSERT_GE(o.resource.size(), 2u);
  EXPECT_EQ(o.resource[0], (std::pair<std::string, std::string>{"service.name", "hotel-server-eu"}));
  EXPECT_EQ(o.resource[1], (std::pair<std::string, std::string>{"deployment.environment.name", "prod"}));
  EXPECT_DOUBLE_EQ(o.sampler_ratio, 0.1);
  EXPECT_EQ(o.schedule_delay, absl::Milliseconds(200));
  auto traces = FromEnvironment({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"},
                                 {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://b/otlp/traces"},
                                 {"OTEL_TRACES_SAMPLER", "parentbased_always_off"}});
  ASSERT_TRUE(traces.ok() && traces->has_value());
  EXPECT_EQ((*traces)->traces_url, "https://b/otlp/traces");
  EXPECT_EQ((*traces)->sampler_ratio, 0);
  EXPECT_EQ((*traces)->resource[0].second, "hotel-server");
}

TEST(OtlpOptionsTest, ValuesItCannotUseAreRefusedByName) {
  for (const auto& [variable, value] :
       std::vector<std::pair<std::string, std::string>>{{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"},
                                                        {"OTEL_TRACES_SAMPLER", "jaeger_remote"},
                                                        {"OTEL_TRACES_SAMPLER_ARG", "1.5"},
                                                        {"OTEL_BSP_MAX_QUEUE_SIZE", "-1"},
                                                        {"OTEL_RESOURCE_ATTRIBUTES", "novalue"},
                                                        {"OTEL_EXPORTER_OTLP_TIMEOUT", "soon"}}) {
    auto options = FromEnvironment({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"}, {variable, value}});
    ASSERT_FALSE(options.ok()) << variable;
    EXPECT_NE(options.status().message().find(variable), std::string::npos) << options.status();
  }
  EXPECT_FALSE(FromEnvironment({{"OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318"}}).ok());
}

TEST(OtlpBodyTest, SpansAreOtlpMessagesUnderOneResource) {
  std::vector<std::unique_ptr<SpanData>> spans;
  auto span = std::make_unique<SpanData>();
  const std::string trace = "4bf92f3577b34da6a3ce929d0e0e4736";
  std::copy(trace.begin(), trace.end(), span->trace_id.begin());
  const std::string id = "00f067aa0ba902b7";
  std::copy(id.begin(), id.end(), span->span_id.begin());
  span->name = "hotel.v1.IssueService/CreateIssue";
  span->kind = SpanKind::kServer;
  span->start_unix_nanos = 1000;
  span->end_unix_nanos = 3000;
  span->attributes = {{"rpc.system", std::string("grpc")}, {"rpc.grpc.status_code", int64_t{5}}, {"ok", true}};
  span->error = true;
  span->status_message = "UNAVAILABLE";
  SpanLink& link = span->links.emplace_back();
  std::copy(trace.begin(), trace.end(), link.trace_id.begin());
  link.span_id.fill('0');
  spans.push_back(std::move(span));
  opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest request;
  ASSERT_TRUE(request.ParseFromString(SerializeExportRequest(spans, {{"service.name", "hotel-server"}})));
  ASSERT_EQ(request.resource_spans_size(), 1);
  const auto& resource = request.resource_spans(0);
  EXPECT_EQ(resource.resource().attributes(0).value().string_value(), "hotel-server");
  const auto& out = resource.scope_spans(0).spans(0);
  EXPECT_EQ(out.trace_id(), std::string("\x4b\xf9\x2f\x35\x77\xb3\x4d\xa6\xa3\xce\x92\x9d\x0e\x0e\x47\x36", 16));
  EXPECT_EQ(out.span_id().size(), 8u);
  EXPECT_TRUE(out.parent_span_id().empty());
  EXPECT_EQ(out.kind(), opentelemetry::proto::trace::v1::Span::SPAN_KIND_SERVER);
  EXPECT_EQ(out.end_time_unix_nano() - out.start_time_unix_nano(), 2000u);
  EXPECT_EQ(out.attributes(1).value().int_value(), 5);
  EXPECT_TRUE(out.attributes(2).value().bool_value());
  EXPECT_EQ(out.status().code(), opentelemetry::proto::trace::v1::Status::STATUS_CODE_ERROR);
  EXPECT_EQ(out.links(0).span_id(), std::string(8, '\0'));
}

TEST(OtlpExporterTest, AFullQueueDropsAndCountsWithoutWaiting) {
  OtlpOptions options;
  options.traces_url = "http://127.0.0.1:9/v1/traces";  // discard: nothing listens
  options.max_queue_size = 4;
  options.max_export_batch_size = 4;
  options.schedule_delay = absl::Hours(1);  // the exporter thread waits for a full batch
  options.export_timeout = absl::Milliseconds(200);
  OtlpExporter exporter(options);
  // Four fill the queue and wake the exporter; whatever it has not taken yet when the rest
  // arrive is full, and those are dropped at once.
  for (int i = 0; i < 1000; ++i) exporter.Export(std::make_unique<SpanData>());
  const OtlpExporterStats stats = exporter.Stats();
  EXPECT_GT(stats.dropped_queue_full, 0);
  EXPECT_LE(stats.queued, 4);
}

// The nice value of this process's thread named name (/proc/self/task/*/stat's 19th field), or
// nullopt when there is none.
std::optional<int> NiceOfThread(const std::string& name) {
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string thread_name;
    std::getline(comm, thread_name);
    if (thread_name != name) continue;
    std::ifstream stat_file(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
    // After "pid (comm) ": state is field 3, nice field 19.
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string field;
    for (int i = 3; i <= 19; ++i) fields >> field;
    return std::stoi(field);
  }
  return std::nullopt;
}

TEST(OtlpExporterTest, TheExportThreadYieldsTheCpuToRequests) {
  OtlpOptions options;
  options.traces_url = "http://127.0.0.1:9/v1/traces";
  OtlpExporter exporter(options);
  std::optional<int> nice;
  for (int i = 0; i < 100 && nice.value_or(0) == 0; ++i) {  // the thread sets its own priority first
    absl::SleepFor(absl::Milliseconds(10));
    nice = NiceOfThread("otlp-export");
  }
  ASSERT_TRUE(nice.has_value()) << "no thread named otlp-export";
  EXPECT_EQ(*nice, 10);
  EXPECT_EQ(NiceOfThread("no-such-thread"), std::nullopt);
}

TEST(StatementNamesTest, FixedStatementsByNameOthersByKeyword) {
  db::RegisterStatementNames({{"SELECT 1 FROM rooms WHERE number = $1", "rooms/test_statement"}});
  EXPECT_EQ(db::StatementName("SELECT 1 FROM rooms WHERE number = $1"), "rooms/test_statement");
  EXPECT_EQ(db::StatementName("  select * from issues WHERE title = $1"), "SELECT");
}

}  // namespace
}  // namespace hotel
