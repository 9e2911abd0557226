#include "common/dates.h"

#include <regex>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"

namespace hotel {

int DaysInMonth(int64_t year, int month) {
  const absl::CivilMonth m(year, month);
  return static_cast<int>(absl::CivilDay(m + 1) - absl::CivilDay(m));
}

std::optional<absl::CivilDay> ParseDate(absl::string_view text) {
  static const std::regex kPattern("[0-9]{4}-[0-9]{2}-[0-9]{2}");
  if (!std::regex_match(text.begin(), text.end(), kPattern)) return std::nullopt;
  int year = 0, month = 0, day = 0;
  if (!absl::SimpleAtoi(text.substr(0, 4), &year) || !absl::SimpleAtoi(text.substr(5, 2), &month) ||
      !absl::SimpleAtoi(text.substr(8, 2), &day)) {
    return std::nullopt;
  }
  if (year < 1900 || year > 2999 || month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) {
    return std::nullopt;
  }
  return absl::CivilDay(year, month, day);
}

std::string FormatDate(absl::CivilDay day) {
  return absl::StrFormat("%04d-%02d-%02d", day.year(), day.month(), day.day());
}

absl::CivilDay LocalDay(absl::Time at, absl::string_view time_zone) {
  absl::TimeZone zone = absl::UTCTimeZone();
  if (!absl::LoadTimeZone(std::string(time_zone), &zone)) zone = absl::UTCTimeZone();
  return absl::ToCivilDay(at, zone);
}

}  // namespace hotel
