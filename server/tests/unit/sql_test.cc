#include "db/sql.h"

#include <gtest/gtest.h>

namespace hotel::db {
namespace {

TEST(SqlQuery, BindNumbersPlaceholdersInOrder) {
  SqlQuery q;
  EXPECT_EQ(q.Bind("a"), "$1");
  EXPECT_EQ(q.Bind("b"), "$2");
  EXPECT_EQ(q.params, (std::vector<std::string>{"a", "b"}));
}

TEST(WhereClause, JoinsConditionsWithAnd) {
  WhereClause w;
  EXPECT_EQ(w.ToSql(), "");
  w.Add("a = $1");
  w.Add("b = $2");
  EXPECT_EQ(w.ToSql(), " WHERE a = $1 AND b = $2");
}

TEST(TextArray, LiteralQuotesAndEscapes) {
  EXPECT_EQ(TextArrayLiteral({}), "{}");
  EXPECT_EQ(TextArrayLiteral({"wifi", "a\"b", "c\\d", "x,y"}), R"({"wifi","a\"b","c\\d","x,y"})");
}

TEST(TextArray, ParsesWhatPostgresReturns) {
  EXPECT_TRUE(ParseTextArray("{}").empty());
  EXPECT_EQ(ParseTextArray("{wifi,sea_view}"), (std::vector<std::string>{"wifi", "sea_view"}));
  EXPECT_EQ(ParseTextArray(R"({"a b","c\"d",e})"), (std::vector<std::string>{"a b", "c\"d", "e"}));
}

TEST(TextArray, RoundTrips) {
  std::vector<std::string> values = {"plain", "with space", "quote\"", "back\\slash", "comma,"};
  EXPECT_EQ(ParseTextArray(TextArrayLiteral(values)), values);
}

}  // namespace
}  // namespace hotel::db
