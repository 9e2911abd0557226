#include "common/log.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace hotel {
namespace {

void Write(absl::string_view level, absl::string_view message, std::initializer_list<LogField> fields) {
  std::string line =
      absl::StrCat("{\"ts\":", JsonQuote(absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone())),
                   ",\"level\":", JsonQuote(level), ",\"msg\":", JsonQuote(message));
  for (const auto& [key, value] : fields) absl::StrAppend(&line, ",", JsonQuote(key), ":", JsonQuote(value));
  line += "}\n";
  std::fputs(line.c_str(), stderr);  // one write per line keeps concurrent lines whole
}

}  // namespace

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

void LogInfo(absl::string_view message, std::initializer_list<LogField> fields) { Write("info", message, fields); }
void LogWarning(absl::string_view message, std::initializer_list<LogField> fields) {
  Write("warning", message, fields);
}
void LogError(absl::string_view message, std::initializer_list<LogField> fields) { Write("error", message, fields); }

}  // namespace hotel
