// The names of the fixed statements (src/<area>/sql/<name>.sql becomes "<area>/<name>"), which a
// statement's trace span carries instead of its text or values. The generated headers of the
// statements (cmake/embed_sql.cmake) register theirs when the program starts.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"

namespace hotel::db {

// Registers (statement text, name) pairs; returns true, for the generated headers' constant.
bool RegisterStatementNames(std::initializer_list<std::pair<absl::string_view, absl::string_view>> statements);

// The name of a fixed statement; for a statement built at run time (filters, paging), its first
// keyword ("SELECT"), so no value of a request ever names a span.
std::string StatementName(absl::string_view text);

}  // namespace hotel::db
