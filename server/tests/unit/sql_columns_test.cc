// The readers name columns by enums (issue_columns::kVersion …) kept beside the statements; these
// tests hold each enum to the column list of its sql/_*_columns.sql file, so a column added,
// removed or moved in one place but not the other fails here rather than reading the wrong value.
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "gtest/gtest.h"
#include "issues/issue_sql.h"
#include "sql/issues.h"

namespace hotel {
namespace {

// The output names of a column list: the alias after AS, else the column after the last dot.
// Commas inside parentheses or quotes do not separate columns.
std::vector<std::string> ColumnNames(absl::string_view list) {
  std::vector<std::string> names;
  std::string column;
  int depth = 0;
  bool quoted = false;
  auto finish = [&] {
    const size_t as = column.rfind(" AS ");
    std::string name = as != std::string::npos ? column.substr(as + 4) : column.substr(column.rfind('.') + 1);
    name.erase(0, name.find_first_not_of(" \n"));
    name.erase(name.find_last_not_of(" \n") + 1);
    names.push_back(name);
    column.clear();
  };
  for (char c : list) {
    if (c == '\'') quoted = !quoted;
    if (!quoted && c == '(') ++depth;
    if (!quoted && c == ')') --depth;
    if (!quoted && depth == 0 && c == ',') {
      finish();
      continue;
    }
    column += c == '\n' ? ' ' : c;
  }
  finish();
  return names;
}

TEST(SqlColumnsTest, ColumnNamesReadsAliasesAndColumns) {
  EXPECT_EQ(ColumnNames("i.id::text AS id, coalesce(a, 'x,y') AS b,\ni.title"),
            (std::vector<std::string>{"id", "b", "title"}));
}

TEST(SqlColumnsTest, IssueColumns) {
  const auto names = ColumnNames(sql::issues::kIssueColumns);
  ASSERT_EQ(names.size(), static_cast<size_t>(issues::issue_columns::kCount));
  namespace c = issues::issue_columns;
  EXPECT_EQ(names[c::kId], "id");
  EXPECT_EQ(names[c::kPropertyId], "property_id");
  EXPECT_EQ(names[c::kRoomNumber], "room_number");
  EXPECT_EQ(names[c::kEquipmentId], "equipment_id");
  EXPECT_EQ(names[c::kTitle], "title");
  EXPECT_EQ(names[c::kDescription], "description");
  EXPECT_EQ(names[c::kCategory], "category");
  EXPECT_EQ(names[c::kPriority], "priority");
  EXPECT_EQ(names[c::kStatus], "status");
  EXPECT_EQ(names[c::kStatusReason], "status_reason");
  EXPECT_EQ(names[c::kReportedBy], "reported_by");
  EXPECT_EQ(names[c::kAssignee], "assignee");
  EXPECT_EQ(names[c::kTakeRoomOutOfOrder], "take_room_out_of_order");
  EXPECT_EQ(names[c::kCreatedAtMicros], "created_at_micros");
  EXPECT_EQ(names[c::kUpdatedAtMicros], "updated_at_micros");
  EXPECT_EQ(names[c::kResolvedAtMicros], "resolved_at_micros");
  EXPECT_EQ(names[c::kFirstResponseAtMicros], "first_response_at_micros");
  EXPECT_EQ(names[c::kResolveByMicros], "resolve_by_micros");
  EXPECT_EQ(names[c::kOverdue], "overdue");
  EXPECT_EQ(names[c::kUpdatedBy], "updated_by");
  EXPECT_EQ(names[c::kVersion], "version");
}

TEST(SqlColumnsTest, IssueEventColumns) {
  const auto names = ColumnNames(sql::issues::kIssueEventColumns);
  ASSERT_EQ(names.size(), static_cast<size_t>(issues::issue_event_columns::kCount));
  namespace c = issues::issue_event_columns;
  EXPECT_EQ(names[c::kId], "event_id");
  EXPECT_EQ(names[c::kAtMicros], "at_micros");
  EXPECT_EQ(names[c::kActor], "actor");
  EXPECT_EQ(names[c::kType], "type");
  EXPECT_EQ(names[c::kFromValue], "from_value");
  EXPECT_EQ(names[c::kToValue], "to_value");
  EXPECT_EQ(names[c::kNote], "note");
  EXPECT_EQ(names[c::kField], "field");
}

}  // namespace
}  // namespace hotel
