// A parameterised SQL statement under construction. Values never enter the text: each one
// becomes a $n placeholder, so user input cannot change a statement's meaning.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/generated_enum_reflection.h"

namespace hotel::db {

struct SqlQuery {
  std::string text;
  std::vector<std::string> params;

  // Appends value as the next parameter and returns its placeholder, e.g. "$3".
  std::string Bind(std::string value);
};

// Builds "WHERE a AND b ..." (or "" when there is no condition).
class WhereClause {
 public:
  void Add(std::string condition) { conditions_.push_back(std::move(condition)); }
  std::string ToSql() const;

 private:
  std::vector<std::string> conditions_;
};

// " WHERE <alias>.property_id = $a AND <alias>.<room column> = $b": the rows of one room.
std::string RoomWhere(SqlQuery& sql, absl::string_view alias, absl::string_view room_column,
                      absl::string_view property_id, absl::string_view number);

// " LIMIT $n" fetching page_size + 1 rows: the extra row only tells that a next page exists.
std::string Limit(SqlQuery& sql, int page_size);

// The keys of a batch read that no row answered (found: the rows' keys), in the order asked.
std::vector<std::string> MissingKeys(const std::vector<std::string>& asked, const std::vector<std::string>& found);
// "room 7 does not exist" or "rooms 7, 8 do not exist" (noun, plural by "s").
std::string DoNotExist(absl::string_view noun, const std::vector<std::string>& keys);

// A PostgreSQL array literal such as {"wifi","sea_view"}, for binding a text[] parameter.
std::string TextArrayLiteral(const std::vector<std::string>& values);

// Parses a text[] value as returned by PostgreSQL (e.g. {wifi,"sea view"}).
std::vector<std::string> ParseTextArray(absl::string_view literal);

// The value of an enum column, which holds a value's name (status, category, ...); Enum's zero
// value (UNSPECIFIED) when the text names none.
template <typename Enum>
Enum ParseEnum(absl::string_view name) {
  const auto* value = google::protobuf::GetEnumDescriptor<Enum>()->FindValueByName(std::string(name));
  return static_cast<Enum>(value != nullptr ? value->number() : 0);
}

}  // namespace hotel::db
