// Structured logs: one JSON object per line on stderr, so log pipelines need no parsing rules.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"

namespace hotel {

using LogField = std::pair<absl::string_view, std::string>;

void LogInfo(absl::string_view message, std::initializer_list<LogField> fields = {});
void LogWarning(absl::string_view message, std::initializer_list<LogField> fields = {});
void LogError(absl::string_view message, std::initializer_list<LogField> fields = {});

// A JSON string literal (with quotes) for value; exposed for tests.
std::string JsonQuote(absl::string_view value);

}  // namespace hotel
