#include "issues/issue_state_machine.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/errors.h"
#include "sql/db.h"

namespace hotel::issues {
namespace {

using hotel::v1::Issue;

// The table of docs/maintenance.md, written out independently of the implementation.
const std::set<std::pair<IssueStatus, IssueStatus>>& Allowed() {
  static const std::set<std::pair<IssueStatus, IssueStatus>> kAllowed = {
      {Issue::OPEN, Issue::IN_PROGRESS},    {Issue::OPEN, Issue::ON_HOLD},
      {Issue::OPEN, Issue::RESOLVED},       {Issue::OPEN, Issue::CANCELLED},
      {Issue::IN_PROGRESS, Issue::ON_HOLD}, {Issue::IN_PROGRESS, Issue::RESOLVED},
      {Issue::ON_HOLD, Issue::IN_PROGRESS}, {Issue::ON_HOLD, Issue::CANCELLED},
      {Issue::RESOLVED, Issue::CLOSED},     {Issue::RESOLVED, Issue::IN_PROGRESS},
  };
  return kAllowed;
}

TEST(IssueStateMachine, EveryPairIsAllowedExactlyAsDocumented) {
  int allowed = 0, refused = 0;
  for (IssueStatus from : AllIssueStatuses()) {
    for (IssueStatus to : AllIssueStatuses()) {
      const bool expected = Allowed().count({from, to}) > 0;
      EXPECT_EQ(IsAllowedTransition(from, to), expected)
          << Issue::Status_Name(from) << " -> " << Issue::Status_Name(to);
      absl::Status status = CheckTransition(from, to, "because");
      if (expected) {
        EXPECT_TRUE(status.ok()) << Issue::Status_Name(from) << " -> " << Issue::Status_Name(to) << ": " << status;
        ++allowed;
      } else {
        EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition)
            << Issue::Status_Name(from) << " -> " << Issue::Status_Name(to);
        EXPECT_EQ(ErrorReason(status), "INVALID_TRANSITION");
        ++refused;
      }
    }
  }
  EXPECT_EQ(allowed, 10);
  EXPECT_EQ(refused, 26);  // 36 pairs, including every X -> X
}

TEST(IssueStateMachine, UnspecifiedIsNeverATarget) {
  for (IssueStatus from : AllIssueStatuses()) {
    EXPECT_FALSE(IsAllowedTransition(from, Issue::STATUS_UNSPECIFIED));
    EXPECT_EQ(ErrorReason(CheckTransition(from, Issue::STATUS_UNSPECIFIED, "x")), "INVALID_TRANSITION");
  }
}

TEST(IssueStateMachine, AllowedTransitionsListsTargetsInDeclarationOrder) {
  EXPECT_EQ(AllowedTransitions(Issue::OPEN),
            (std::vector<IssueStatus>{Issue::IN_PROGRESS, Issue::ON_HOLD, Issue::RESOLVED, Issue::CANCELLED}));
  EXPECT_EQ(AllowedTransitions(Issue::RESOLVED), (std::vector<IssueStatus>{Issue::IN_PROGRESS, Issue::CLOSED}));
  EXPECT_TRUE(AllowedTransitions(Issue::CLOSED).empty());
  EXPECT_TRUE(AllowedTransitions(Issue::CANCELLED).empty());
}

TEST(IssueStateMachine, OnHoldAndCancelledNeedAReason) {
  for (auto [from, to] : std::vector<std::pair<IssueStatus, IssueStatus>>{{Issue::OPEN, Issue::ON_HOLD},
                                                                          {Issue::IN_PROGRESS, Issue::ON_HOLD},
                                                                          {Issue::OPEN, Issue::CANCELLED},
                                                                          {Issue::ON_HOLD, Issue::CANCELLED}}) {
    for (const char* reason : {"", "   "}) {
      absl::Status status = CheckTransition(from, to, reason);
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(ErrorReason(status), "REASON_REQUIRED");
      ASSERT_EQ(FieldViolations(status).size(), 1u);
      EXPECT_EQ(FieldViolations(status)[0].field, "reason");
    }
    EXPECT_TRUE(CheckTransition(from, to, "waiting for parts").ok());
  }
  // Other transitions do not need one.
  EXPECT_TRUE(CheckTransition(Issue::OPEN, Issue::RESOLVED, "").ok());
  EXPECT_TRUE(CheckTransition(Issue::RESOLVED, Issue::IN_PROGRESS, "").ok());
}

TEST(IssueStateMachine, ARefusedTransitionIsReportedBeforeAMissingReason) {
  EXPECT_EQ(ErrorReason(CheckTransition(Issue::CLOSED, Issue::ON_HOLD, "")), "INVALID_TRANSITION");
}

TEST(IssueStateMachine, OpenStatuses) {
  std::map<IssueStatus, bool> expected = {{Issue::OPEN, true},    {Issue::IN_PROGRESS, true},
                                          {Issue::ON_HOLD, true}, {Issue::RESOLVED, false},
                                          {Issue::CLOSED, false}, {Issue::CANCELLED, false}};
  for (auto [status, open] : expected) EXPECT_EQ(IsOpenStatus(status), open) << Issue::Status_Name(status);
}

TEST(IssueStateMachine, TheMessageNamesTheAllowedTargets) {
  absl::Status status = CheckTransition(Issue::IN_PROGRESS, Issue::CLOSED, "");
  EXPECT_NE(status.message().find("IN_PROGRESS to CLOSED"), absl::string_view::npos) << status;
  EXPECT_NE(status.message().find("allowed: ON_HOLD, RESOLVED"), absl::string_view::npos) << status;
  EXPECT_NE(CheckTransition(Issue::CLOSED, Issue::OPEN, "").message().find("final"), absl::string_view::npos);
}

// The statements count an issue as open by db/sql/_open_issue_statuses.sql; the state machine
// must agree with it on every status.
TEST(IssueStateMachine, OpenStatusesAreTheOnesTheStatementsUse) {
  const std::string statuses(sql::db::kOpenIssueStatuses);
  for (IssueStatus status : AllIssueStatuses()) {
    const bool in_sql = statuses.find(absl::StrCat("'", Issue::Status_Name(status), "'")) != std::string::npos;
    EXPECT_EQ(IsOpenStatus(status), in_sql) << Issue::Status_Name(status);
  }
}

}  // namespace
}  // namespace hotel::issues
