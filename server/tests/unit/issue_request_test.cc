#include "issues/issue_request.h"

#include <gtest/gtest.h>

#include "api/idempotency.h"
#include "common/errors.h"
#include "common/page_token.h"
#include "issues/issue_sql.h"

namespace hotel::issues {
namespace {

using namespace hotel::v1;

CreateIssueRequest GoodIssue() {
  CreateIssueRequest request;
  request.set_property_id("BER1");
  request.set_room_number("101");
  request.set_title("  Leaking tap ");
  request.set_category(Issue::PLUMBING);
  request.set_reported_by("Anna");
  return request;
}

TEST(CreateIssue, DefaultsAndTrimming) {
  auto issue = ValidateCreateIssue(GoodIssue());
  ASSERT_TRUE(issue.ok()) << issue.status();
  EXPECT_EQ(issue->title, "Leaking tap");
  EXPECT_EQ(issue->priority, "MEDIUM");
  EXPECT_EQ(issue->category, "PLUMBING");
  EXPECT_EQ(issue->resolution_target_seconds, 72 * 3600);
  EXPECT_FALSE(issue->request_hash.empty());
}

TEST(CreateIssue, EveryBadFieldIsNamed) {
  CreateIssueRequest request = GoodIssue();
  request.set_title("");
  request.set_category(static_cast<Issue::Category>(77));
  request.set_priority(static_cast<Issue::Priority>(9));
  request.set_reported_by("");
  request.set_equipment_id("abc");
  request.set_request_id("has spaces");
  request.set_room_number("1 01");
  EXPECT_EQ(ViolatedFields(ValidateCreateIssue(request).status()),
            (std::vector<std::string>{"room_number", "equipment_id", "title", "category", "priority", "reported_by",
                                      "request_id"}));
  CreateIssueRequest no_category = GoodIssue();
  no_category.clear_category();
  EXPECT_EQ(ViolatedFields(ValidateCreateIssue(no_category).status()), std::vector<std::string>{"category"});
  CreateIssueRequest no_property = GoodIssue();
  no_property.clear_property_id();
  EXPECT_EQ(ErrorReason(ValidateCreateIssue(no_property).status()), "PROPERTY_ID_REQUIRED");
  CreateIssueRequest long_title = GoodIssue();
  long_title.set_title(std::string(201, 'a'));
  EXPECT_EQ(ViolatedFields(ValidateCreateIssue(long_title).status()), std::vector<std::string>{"title"});
}

TEST(RequestFingerprint, SameRequestSameFingerprint) {
  CreateIssueRequest a = GoodIssue(), b = GoodIssue();
  a.set_request_id("r-1");
  b.set_request_id("r-1");
  EXPECT_EQ(api::RequestFingerprint(a), api::RequestFingerprint(b));
  b.set_title("Other");
  EXPECT_NE(api::RequestFingerprint(a), api::RequestFingerprint(b));
}

TEST(ListIssues, FiltersBecomeParametersNewestFirst) {
  ListIssuesRequest request;
  request.set_status(Issue::OPEN);
  request.set_priority(Issue::HIGH);
  request.set_category(Issue::HVAC);
  request.set_property_id("BER1");
  request.set_room_number("101");
  request.set_page_size(10);
  auto query = ParseListIssues(request);
  ASSERT_TRUE(query.ok()) << query.status();
  db::SqlQuery sql = BuildListIssuesSql(*query);
  EXPECT_NE(sql.text.find("WHERE i.status = $1 AND i.priority = $2 AND i.category = $3 AND i.property_id = $4"
                          " AND i.room_number = $5 ORDER BY i.created_at DESC, i.id DESC LIMIT $6::int"),
            std::string::npos)
      << sql.text;
  EXPECT_EQ(sql.params, (std::vector<std::string>{"OPEN", "HIGH", "HVAC", "BER1", "101", "11"}));
}

TEST(ListIssues, KeysetTokenContinuesBelowTheLastRowAndIsBoundToTheFilters) {
  ListIssuesRequest request;
  request.set_status(Issue::OPEN);
  auto first = ParseListIssues(request);
  ASSERT_TRUE(first.ok());
  const std::string id = "123e4567-e89b-12d3-a456-426614174000";
  request.set_page_token(EncodePageToken({"issues", Fingerprint(*first), {"1700000000000000", id}}));
  auto next = ParseListIssues(request);
  ASSERT_TRUE(next.ok()) << next.status();
  db::SqlQuery sql = BuildListIssuesSql(*next);
  EXPECT_NE(sql.text.find("(i.created_at, i.id) < (('epoch'::timestamptz + $2::int8 * interval '1 microsecond'), "
                          "$3::uuid)"),
            std::string::npos)
      << sql.text;
  EXPECT_EQ(sql.params, (std::vector<std::string>{"OPEN", "1700000000000000", id, "51"}));

  request.set_status(Issue::RESOLVED);  // other filters
  EXPECT_EQ(ViolatedFields(ParseListIssues(request).status()), std::vector<std::string>{"page_token"});
  ListIssuesRequest forged;
  auto plain = ParseListIssues(forged);
  forged.set_page_token(EncodePageToken({"issues", Fingerprint(*plain), {"yesterday", id}}));
  EXPECT_EQ(ErrorReason(ParseListIssues(forged).status()), "INVALID_PAGE_TOKEN");
  forged.set_page_token(EncodePageToken({"rooms", Fingerprint(*plain), {"1", id}}));
  EXPECT_EQ(ErrorReason(ParseListIssues(forged).status()), "INVALID_PAGE_TOKEN");
}

TEST(ListIssues, BadFilters) {
  ListIssuesRequest request;
  request.set_status(static_cast<Issue::Status>(42));
  request.set_category(static_cast<Issue::Category>(42));
  request.set_page_size(-1);
  EXPECT_EQ(ViolatedFields(ParseListIssues(request).status()),
            (std::vector<std::string>{"status", "category", "page_size"}));
  ListIssuesRequest room_only;
  room_only.set_room_number("101");
  EXPECT_EQ(ErrorReason(ParseListIssues(room_only).status()), "PROPERTY_ID_REQUIRED");
  ListIssuesRequest big;
  big.set_page_size(10000);
  EXPECT_EQ(ParseListIssues(big)->page_size, 500);
}

TEST(ResolutionTargets, PerPriority) {
  EXPECT_EQ(ResolutionTarget(Issue::URGENT), absl::Hours(4));
  EXPECT_EQ(ResolutionTarget(Issue::HIGH), absl::Hours(24));
  EXPECT_EQ(ResolutionTarget(Issue::MEDIUM), absl::Hours(72));
  EXPECT_EQ(ResolutionTarget(Issue::LOW), absl::Hours(168));
}

}  // namespace
}  // namespace hotel::issues
