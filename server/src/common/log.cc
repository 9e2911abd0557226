#include "common/log.h"

#include <atomic>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "common/call_context.h"

namespace hotel {
namespace {

// service.name; the tools that share the server's libraries name themselves (SetLogServiceName).
std::atomic<const char*> service_name{"hotel-server"};

struct SeverityNames {
  absl::string_view text;
  absl::string_view number;  // OpenTelemetry SeverityNumber: DEBUG 5, INFO 9, WARN 13, ERROR 17
};

SeverityNames NamesOf(Severity severity) {
  switch (severity) {
    case Severity::kDebug:
      return {"DEBUG", "5"};
    case Severity::kInfo:
      return {"INFO", "9"};
    case Severity::kWarn:
      return {"WARN", "13"};
    case Severity::kError:
      return {"ERROR", "17"};
  }
  return {"INFO", "9"};
}

void Write(Severity severity, absl::string_view message, std::initializer_list<LogField> fields) {
  std::string line = FormatLogLine(absl::Now(), severity, message, fields);
  line += '\n';
  std::fputs(line.c_str(), stderr);  // one write per line keeps concurrent lines whole
}

}  // namespace

void SetLogServiceName(const char* name) { service_name.store(name, std::memory_order_relaxed); }

std::string LogField::FormatNumber(double number) {
  if (!std::isfinite(number)) return "null";  // JSON has no NaN or infinity
  return absl::StrFormat("%.3f", number);
}

std::string LogField::FormatNumber(int64_t number) { return absl::StrCat(number); }

std::string FormatLogLine(absl::Time now, Severity severity, absl::string_view message,
                          std::initializer_list<LogField> fields) {
  const SeverityNames names = NamesOf(severity);
  std::string line = absl::StrCat(
      "{\"timestamp\":\"", absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", now, absl::UTCTimeZone()),
      "\",\"severity_text\":\"", names.text, "\",\"severity_number\":", names.number, ",\"body\":", JsonQuote(message),
      ",\"service.name\":\"", service_name.load(std::memory_order_relaxed), "\"");
  if (const RequestSpan* span = CurrentRequestSpan(); span != nullptr) {
    // The ids are validated hex; the request id is the caller's text and is quoted.
    absl::StrAppend(&line, ",\"trace_id\":\"", span->trace_id(), "\",\"span_id\":\"", span->span_id(), "\"");
    if (!span->request_id().empty()) absl::StrAppend(&line, ",\"request_id\":", JsonQuote(span->request_id()));
  }
  for (const auto& field : fields) {
    absl::StrAppend(&line, ",", JsonQuote(field.key), ":", field.is_number ? field.value : JsonQuote(field.value));
  }
  line += '}';
  return line;
}

std::string JsonQuote(absl::string_view value) {
  std::string out = "\"";
  for (unsigned char c : value) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

void LogInfo(absl::string_view message, std::initializer_list<LogField> fields) {
  Write(Severity::kInfo, message, fields);
}
void LogWarning(absl::string_view message, std::initializer_list<LogField> fields) {
  Write(Severity::kWarn, message, fields);
}
void LogError(absl::string_view message, std::initializer_list<LogField> fields) {
  Write(Severity::kError, message, fields);
}

}  // namespace hotel
