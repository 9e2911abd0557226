// Request-wide checks on string fields that no per-field validator should have to repeat.
#pragma once

#include <google/protobuf/message.h>

#include "absl/status/status.h"

namespace hotel {

// INVALID_ARGUMENT naming every string field (nested fields as "a.b") that holds a NUL
// character. PostgreSQL text cannot store NUL and libpq would silently cut the value at it,
// so such input must be refused before it reaches a query, never truncated.
absl::Status RejectNulCharacters(const google::protobuf::Message& request);

}  // namespace hotel
