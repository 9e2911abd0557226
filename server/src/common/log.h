// Structured logs: one flat JSON object per line on stderr, in the shape the gateway writes too
// (docs/operations.md, "Logs"): OpenTelemetry log data model names (timestamp, severity_text,
// severity_number, body, service.name), the current request's trace_id, span_id and request_id
// (common/trace_context.h) on every line written while serving it, then the line's attributes
// under semantic-convention names where one exists. Numbers stay numbers.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace hotel {

// One attribute of a log line: text, or a number written as a JSON number.
struct LogField {
  LogField(absl::string_view key, std::string text) : key(key), value(std::move(text)) {}
  LogField(absl::string_view key, const char* text) : key(key), value(text) {}
  LogField(absl::string_view key, absl::string_view text) : key(key), value(text) {}
  template <typename Number, std::enable_if_t<std::is_arithmetic_v<Number> && !std::is_same_v<Number, bool>, int> = 0>
  LogField(absl::string_view key, Number number) : key(key), value(FormatNumber(number)), is_number(true) {}

  absl::string_view key;
  std::string value;
  bool is_number = false;

 private:
  static std::string FormatNumber(double number);
  static std::string FormatNumber(int64_t number);
  template <typename Number>
  static std::string FormatNumber(Number number) {
    if constexpr (std::is_floating_point_v<Number>) {
      return FormatNumber(static_cast<double>(number));
    } else {
      return FormatNumber(static_cast<int64_t>(number));
    }
  }
};

void LogInfo(absl::string_view message, std::initializer_list<LogField> fields = {});
void LogWarning(absl::string_view message, std::initializer_list<LogField> fields = {});
void LogError(absl::string_view message, std::initializer_list<LogField> fields = {});

// The service.name of this process's lines ("hotel-server" unless set); name must outlive the
// process (a literal). Set by the tools before they log anything.
void SetLogServiceName(const char* name);

// The line LogInfo & co. write (without the newline) at time now; exposed for the golden test.
enum class Severity { kDebug, kInfo, kWarn, kError };
std::string FormatLogLine(absl::Time now, Severity severity, absl::string_view message,
                          std::initializer_list<LogField> fields);

// A JSON string literal (with quotes) for value; exposed for tests.
std::string JsonQuote(absl::string_view value);

}  // namespace hotel
