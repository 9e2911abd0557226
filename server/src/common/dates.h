// Calendar dates on the wire (YYYY-MM-DD) and the local date of an instant in a property's
// time zone. Pure functions, unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace hotel {

int DaysInMonth(int64_t year, int month);

// Strict YYYY-MM-DD (a real calendar date, years 1900-2999); nullopt otherwise.
std::optional<absl::CivilDay> ParseDate(absl::string_view text);
std::string FormatDate(absl::CivilDay day);
// The calendar date of `at` in the IANA time zone `time_zone` (falls back to UTC when the zone
// is unknown to this machine).
absl::CivilDay LocalDay(absl::Time at, absl::string_view time_zone);

}  // namespace hotel
