#include "db/sql.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hotel::db {

std::string SqlQuery::Bind(std::string value) {
  params.push_back(std::move(value));
  return absl::StrCat("$", params.size());
}

std::string WhereClause::ToSql() const {
  if (conditions_.empty()) return "";
  return absl::StrCat(" WHERE ", absl::StrJoin(conditions_, " AND "));
}

std::vector<std::string> MissingKeys(const std::vector<std::string>& asked, const std::vector<std::string>& found) {
  const std::set<std::string> answered(found.begin(), found.end());
  std::vector<std::string> missing;
  for (const std::string& key : asked) {
    if (!answered.contains(key)) missing.push_back(key);
  }
  return missing;
}

std::string DoNotExist(absl::string_view noun, const std::vector<std::string>& keys) {
  if (keys.size() == 1) return absl::StrCat(noun, " ", keys[0], " does not exist");
  return absl::StrCat(noun, "s ", absl::StrJoin(keys, ", "), " do not exist");
}

std::string TextArrayLiteral(const std::vector<std::string>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += '"';
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

std::vector<std::string> ParseTextArray(absl::string_view literal) {
  std::vector<std::string> out;
  if (literal.size() < 2 || literal.front() != '{' || literal.back() != '}') return out;
  literal = literal.substr(1, literal.size() - 2);
  if (literal.empty()) return out;
  std::string current;
  bool quoted = false;
  for (size_t i = 0; i < literal.size(); ++i) {
    char c = literal[i];
    if (quoted) {
      if (c == '\\' && i + 1 < literal.size()) {
        current += literal[++i];
      } else if (c == '"') {
        quoted = false;
      } else {
        current += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  out.push_back(std::move(current));
  return out;
}

std::string Limit(SqlQuery& sql, int page_size) {
  return absl::StrCat(" LIMIT ", sql.Bind(absl::StrCat(page_size + 1)), "::int");
}

std::string RoomWhere(SqlQuery& sql, absl::string_view alias, absl::string_view room_column,
                      absl::string_view property_id, absl::string_view number) {
  return absl::StrCat(" WHERE ", alias, ".property_id = ", sql.Bind(std::string(property_id)), " AND ", alias, ".",
                      room_column, " = ", sql.Bind(std::string(number)));
}

}  // namespace hotel::db
