// Request-wide checks on string fields that no per-field validator should have to repeat.
#pragma once

#include <google/protobuf/message.h>

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hotel {

// INVALID_ARGUMENT naming every string field (nested fields as "a.b") that holds a NUL
// character. PostgreSQL text cannot store NUL and libpq would silently cut the value at it,
// so such input must be refused before it reaches a query, never truncated.
absl::Status RejectNulCharacters(const google::protobuf::Message& request);

// Length in characters (Unicode code points) of UTF-8 text, which protobuf strings always are:
// "at most N characters" limits count these, never bytes ("é" is one character, two bytes).
size_t CodePoints(absl::string_view utf8);

}  // namespace hotel
