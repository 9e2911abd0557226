#include "observability/otlp_exporter.h"

#include <curl/curl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/log.h"
#include "google/protobuf/arena.h"
#include "opentelemetry/proto/collector/trace/v1/trace_service.pb.h"

namespace hotel {
namespace {

namespace otlp = opentelemetry::proto;

std::string Variable(const char* (*getenv)(const char*), const char* name) {
  const char* value = getenv(name);
  return value != nullptr ? std::string(absl::StripAsciiWhitespace(value)) : std::string();
}

// The signal-specific variable (OTEL_EXPORTER_OTLP_TRACES_<name>) wins over the general one.
std::pair<std::string, std::string> ExporterVariable(const char* (*getenv)(const char*), absl::string_view name) {
  for (const std::string& variable :
       {absl::StrCat("OTEL_EXPORTER_OTLP_TRACES_", name), absl::StrCat("OTEL_EXPORTER_OTLP_", name)}) {
    if (std::string value = Variable(getenv, variable.c_str()); !value.empty()) return {variable, value};
  }
  return {};
}

std::string PercentDecoded(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    int value = 0;
    if (text[i] == '%' && i + 2 < text.size() && absl::SimpleHexAtoi(text.substr(i + 1, 2), &value)) {
      out += static_cast<char>(value);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// "key1=value1,key2=value2" (W3C Baggage's form, percent-encoded values), as OTEL_RESOURCE_ATTRIBUTES
// and OTEL_EXPORTER_OTLP_HEADERS write it.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> KeyValueList(absl::string_view variable,
                                                                              absl::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (absl::string_view member : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::pair<absl::string_view, absl::string_view> pair = absl::StrSplit(member, absl::MaxSplits('=', 1));
    const absl::string_view key = absl::StripAsciiWhitespace(pair.first);
    if (key.empty() || member.find('=') == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(variable, ": expected key=value pairs separated by commas"));
    }
    out.emplace_back(PercentDecoded(key), PercentDecoded(absl::StripAsciiWhitespace(pair.second)));
  }
  return out;
}

absl::StatusOr<int64_t> PositiveInteger(const char* (*getenv)(const char*), const char* name, int64_t fallback) {
  const std::string value = Variable(getenv, name);
  if (value.empty()) return fallback;
  int64_t number = 0;
  if (!absl::SimpleAtoi(value, &number) || number <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": expected a positive integer, got \"", value, "\""));
  }
  return number;
}

void CopyHexAsBytes(const char* hex, size_t length, std::string* out) {
  out->resize(length / 2);
  for (size_t i = 0; i < length / 2; ++i) {
    auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    (*out)[i] = static_cast<char>(nibble(hex[2 * i]) * 16 + nibble(hex[2 * i + 1]));
  }
}

void SetValue(const AttributeValue& value, otlp::common::v1::AnyValue* out) {
  if (const auto* text = std::get_if<std::string>(&value)) {
    out->set_string_value(*text);
  } else if (const auto* integer = std::get_if<int64_t>(&value)) {
    out->set_int_value(*integer);
  } else if (const auto* number = std::get_if<double>(&value)) {
    out->set_double_value(*number);
  } else {
    out->set_bool_value(std::get<bool>(value));
  }
}

void AddAttributes(const Attributes& attributes, google::protobuf::RepeatedPtrField<otlp::common::v1::KeyValue>* out) {
  for (const auto& [key, value] : attributes) {
    auto* kv = out->Add();
    kv->set_key(std::string(key));
    SetValue(value, kv->mutable_value());
  }
}

constexpr int kExporterNice = 10;

size_t DiscardBody(char*, size_t size, size_t count, void*) { return size * count; }

}  // namespace

absl::StatusOr<std::optional<OtlpOptions>> OtlpOptionsFromEnvironment(const char* (*getenv)(const char*)) {
  if (absl::AsciiStrToLower(Variable(getenv, "OTEL_SDK_DISABLED")) == "true") return std::nullopt;
  const std::string exporter = Variable(getenv, "OTEL_TRACES_EXPORTER");
  if (exporter == "none") return std::nullopt;
  if (!exporter.empty() && exporter != "otlp") {
    return absl::InvalidArgumentError(
        absl::StrCat("OTEL_TRACES_EXPORTER: only otlp (or none) is supported, got \"", exporter, "\""));
  }
  OtlpOptions options;
  if (std::string url = Variable(getenv, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); !url.empty()) {
    options.traces_url = url;
  } else if (std::string base = Variable(getenv, "OTEL_EXPORTER_OTLP_ENDPOINT"); !base.empty()) {
    options.traces_url = absl::StrCat(absl::StripSuffix(base, "/"), "/v1/traces");
  } else {
    return std::nullopt;
  }
  if (!absl::StartsWith(options.traces_url, "http://") && !absl::StartsWith(options.traces_url, "https://")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "OTEL_EXPORTER_OTLP_ENDPOINT: expected an http:// or https:// URL, got \"", options.traces_url, "\""));
  }
  if (auto [variable, protocol] = ExporterVariable(getenv, "PROTOCOL");
      !protocol.empty() && protocol != "http/protobuf") {
    return absl::InvalidArgumentError(
        absl::StrCat(variable, ": only http/protobuf is supported by the server, got \"", protocol, "\""));
  }
  if (auto [variable, headers] = ExporterVariable(getenv, "HEADERS"); !headers.empty()) {
    auto parsed = KeyValueList(variable, headers);
    if (!parsed.ok()) return parsed.status();
    options.headers = *std::move(parsed);
  }
  if (auto [variable, timeout] = ExporterVariable(getenv, "TIMEOUT"); !timeout.empty()) {
    int64_t ms = 0;
    if (!absl::SimpleAtoi(timeout, &ms) || ms <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(variable, ": expected milliseconds, got \"", timeout, "\""));
    }
    options.export_timeout = absl::Milliseconds(ms);
  }
  auto resource = KeyValueList("OTEL_RESOURCE_ATTRIBUTES", Variable(getenv, "OTEL_RESOURCE_ATTRIBUTES"));
  if (!resource.ok()) return resource.status();
  std::string service = Variable(getenv, "OTEL_SERVICE_NAME");
  for (const auto& [key, value] : *resource) {
    if (key == "service.name" && service.empty()) service = value;
  }
  options.resource.emplace_back("service.name", service.empty() ? "hotel-server" : service);
  bool has_version = false;
  for (auto& [key, value] : *resource) {
    if (key == "service.name") continue;
    has_version = has_version || key == "service.version";
    options.resource.emplace_back(std::move(key), std::move(value));
  }
  if (!has_version) options.resource.emplace_back("service.version", HOTEL_VERSION);
  // Samplers: the server follows its caller's sampled flag whichever is named (a hop in the
  // middle of a trace must not cut it); the ratio applies to traces that start here.
  const std::string sampler = Variable(getenv, "OTEL_TRACES_SAMPLER");
  const std::string arg = Variable(getenv, "OTEL_TRACES_SAMPLER_ARG");
  if (sampler.empty() || sampler == "parentbased_traceidratio" || sampler == "traceidratio") {
    if (!arg.empty() &&
        (!absl::SimpleAtod(arg, &options.sampler_ratio) || options.sampler_ratio < 0 || options.sampler_ratio > 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("OTEL_TRACES_SAMPLER_ARG: expected a ratio from 0 to 1, got \"", arg, "\""));
    }
  } else if (sampler == "parentbased_always_on" || sampler == "always_on") {
    options.sampler_ratio = 1;
  } else if (sampler == "parentbased_always_off" || sampler == "always_off") {
    options.sampler_ratio = 0;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("OTEL_TRACES_SAMPLER: unknown sampler \"", sampler, "\""));
  }
  auto queue = PositiveInteger(getenv, "OTEL_BSP_MAX_QUEUE_SIZE", 2048);
  auto batch = PositiveInteger(getenv, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512);
  auto delay = PositiveInteger(getenv, "OTEL_BSP_SCHEDULE_DELAY", 5000);
  for (const auto* value : {&queue, &batch, &delay}) {
    if (!value->ok()) return value->status();
  }
  options.max_queue_size = static_cast<size_t>(*queue);
  options.max_export_batch_size = std::min(static_cast<size_t>(*batch), options.max_queue_size);
  options.schedule_delay = absl::Milliseconds(*delay);
  return options;
}

std::string SerializeExportRequest(const std::vector<std::unique_ptr<SpanData>>& spans,
                                   const std::vector<std::pair<std::string, std::string>>& resource) {
  // Built on an arena: a batch is hundreds of messages and strings, freed at once.
  google::protobuf::ArenaOptions arena_options;
  arena_options.start_block_size = 64 << 10;
  arena_options.max_block_size = 1 << 20;
  google::protobuf::Arena arena(arena_options);
  auto& request =
      *google::protobuf::Arena::CreateMessage<otlp::collector::trace::v1::ExportTraceServiceRequest>(&arena);
  auto* resource_spans = request.add_resource_spans();
  for (const auto& [key, value] : resource) {
    auto* kv = resource_spans->mutable_resource()->add_attributes();
    kv->set_key(key);
    kv->mutable_value()->set_string_value(value);
  }
  auto* scope_spans = resource_spans->add_scope_spans();
  scope_spans->mutable_scope()->set_name("hotel-server");
  scope_spans->mutable_scope()->set_version(HOTEL_VERSION);
  scope_spans->mutable_spans()->Reserve(static_cast<int>(spans.size()));
  for (const auto& span : spans) {
    auto* out = scope_spans->add_spans();
    CopyHexAsBytes(span->trace_id.data(), kTraceIdLength, out->mutable_trace_id());
    CopyHexAsBytes(span->span_id.data(), kSpanIdLength, out->mutable_span_id());
    if (span->has_parent) CopyHexAsBytes(span->parent_span_id.data(), kSpanIdLength, out->mutable_parent_span_id());
    out->set_name(span->name);
    out->set_kind(static_cast<otlp::trace::v1::Span::SpanKind>(span->kind));
    out->set_start_time_unix_nano(static_cast<uint64_t>(span->start_unix_nanos));
    out->set_end_time_unix_nano(static_cast<uint64_t>(std::max(span->end_unix_nanos, span->start_unix_nanos)));
    AddAttributes(span->attributes, out->mutable_attributes());
    for (const SpanLink& link : span->links) {
      auto* out_link = out->add_links();
      CopyHexAsBytes(link.trace_id.data(), kTraceIdLength, out_link->mutable_trace_id());
      CopyHexAsBytes(link.span_id.data(), kSpanIdLength, out_link->mutable_span_id());
      AddAttributes(link.attributes, out_link->mutable_attributes());
    }
    if (span->error) {
      out->mutable_status()->set_code(otlp::trace::v1::Status::STATUS_CODE_ERROR);
      out->mutable_status()->set_message(span->status_message);
    }
  }
  return request.SerializeAsString();
}

OtlpExporter::OtlpExporter(OtlpOptions options) : options_(std::move(options)) {
  curl_global_init(CURL_GLOBAL_DEFAULT);  // before any other thread uses libcurl (main.cc: at start)
  thread_ = std::thread([this] { Run(); });
  pthread_setname_np(thread_.native_handle(), "otlp-export");  // top -H, /proc/<pid>/task/*/comm
}

OtlpExporter::~OtlpExporter() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
}

void OtlpExporter::Export(std::unique_ptr<SpanData> span) {
  absl::MutexLock lock(&mu_);
  if (queue_.size() >= options_.max_queue_size) {
    ++stats_.dropped_queue_full;
    return;
  }
  queue_.push_back(std::move(span));
}

OtlpExporterStats OtlpExporter::Stats() const {
  absl::MutexLock lock(&mu_);
  OtlpExporterStats out = stats_;
  out.queued = static_cast<int64_t>(queue_.size());
  return out;
}

void OtlpExporter::Run() {
  // The export takes the CPU the requests leave: a batch serialized and sent at once is a burst of
  // a millisecond or two, which at normal priority lands on the requests' tail latency. Nice 10
  // (Linux: per thread) makes the scheduler prefer request threads, while the exporter keeps a
  // share even at full load, so spans are not dropped merely because the machine is busy.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kExporterNice);
  // One handle for the thread's life: libcurl keeps its connection to the collector open.
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  for (;;) {
    std::vector<std::unique_ptr<SpanData>> batch;
    bool last = false;
    {
      absl::MutexLock lock(&mu_);
      auto batch_due = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || queue_.size() >= options_.max_export_batch_size;
      };
      mu_.AwaitWithTimeout(absl::Condition(&batch_due), options_.schedule_delay);
      const size_t take = std::min(queue_.size(), options_.max_export_batch_size);
      for (size_t i = 0; i < take; ++i) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      last = stopping_ && queue_.empty();
    }
    if (!batch.empty()) {
      const bool accepted = Post(curl.get(), SerializeExportRequest(batch, options_.resource));
      absl::MutexLock lock(&mu_);
      if (accepted) {
        stats_.exported += static_cast<int64_t>(batch.size());
      } else {
        ++stats_.export_failures;
        stats_.dropped_export_failed += static_cast<int64_t>(batch.size());
      }
    }
    if (last) return;
  }
}

bool OtlpExporter::Post(CURL* curl, const std::string& body) {
  if (curl == nullptr) return false;
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/x-protobuf");
  for (const auto& [key, value] : options_.headers) {
    headers = curl_slist_append(headers, absl::StrCat(key, ": ", value).c_str());
  }
  curl_easy_setopt(curl, CURLOPT_URL, options_.traces_url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "hotel-server-otlp/" HOTEL_VERSION);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(absl::ToInt64Milliseconds(options_.export_timeout)));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, DiscardBody);
  const CURLcode result = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  const bool ok = result == CURLE_OK && status >= 200 && status < 300;
  if (!ok) {
    // One line per failed export at most (a batch every schedule delay): the drops are counted.
    LogWarning("trace export failed", {{"error", result != CURLE_OK ? std::string(curl_easy_strerror(result))
                                                                    : absl::StrCat("HTTP ", status)}});
  }
  return ok;
}

void OtlpExporter::RegisterMetrics(MetricRegistry& metrics) const {
  metrics.AddFamily("hotel_server_trace_spans_exported_total", "Spans the trace backend accepted.", "counter", [this] {
    return MetricRegistry::Samples{{"", static_cast<double>(Stats().exported)}};
  });
  metrics.AddFamily("hotel_server_trace_spans_dropped_total",
                    "Spans dropped, by reason: queue_full (the export queue was full: the backend is slow or away), "
                    "export_failed (the backend did not accept their batch).",
                    "counter", [this] {
                      const OtlpExporterStats stats = Stats();
                      return MetricRegistry::Samples{
                          {"reason=\"queue_full\"", static_cast<double>(stats.dropped_queue_full)},
                          {"reason=\"export_failed\"", static_cast<double>(stats.dropped_export_failed)}};
                    });
  metrics.AddGauge("hotel_server_trace_export_queue_spans", "Ended spans waiting for export.",
                   [this] { return static_cast<double>(Stats().queued); });
}

}  // namespace hotel
