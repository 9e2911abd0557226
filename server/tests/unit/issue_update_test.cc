#include "issues/issue_update.h"

#include <gtest/gtest.h>

#include "common/errors.h"
#include "issues/issue_sql.h"

namespace hotel::issues {
namespace {

using hotel::v1::Issue;
using hotel::v1::IssueEvent;

Issue Current(Issue::Status status = Issue::OPEN) {
  Issue issue;
  issue.set_id("5d3c2a4e-0000-4000-8000-000000000001");
  issue.set_property_id("BER1");
  issue.set_room_number("101");
  issue.set_title("Leaking tap");
  issue.set_description("Drips all night");
  issue.set_category(Issue::PLUMBING);
  issue.set_priority(Issue::MEDIUM);
  issue.set_status(status);
  issue.set_reported_by("Anna");
  issue.set_etag(IssueEtag(issue.id(), 3));
  return issue;
}

TEST(PlanIssueUpdate, AppliesOnlyTheMaskedFieldsAndLogsEachChange) {
  Issue patch;
  patch.set_title("Leaking tap in bathroom");
  patch.set_description("ignored: not in the mask");
  patch.set_priority(Issue::HIGH);
  patch.set_assignee("Jonas");
  patch.set_updated_by("Jonas");
  auto plan = PlanIssueUpdate(Current(), patch, {"title", "priority", "assignee", "updated_by"}, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->changed);
  EXPECT_EQ(plan->updated.title(), "Leaking tap in bathroom");
  EXPECT_EQ(plan->updated.description(), "Drips all night");
  EXPECT_EQ(plan->updated.priority(), Issue::HIGH);
  EXPECT_EQ(plan->actor, "Jonas");
  EXPECT_EQ(plan->resolution_target_seconds, 24 * 3600);
  ASSERT_EQ(plan->events.size(), 3u);
  EXPECT_EQ(plan->events[0].type, IssueEvent::FIELD_CHANGED);
  EXPECT_EQ(plan->events[0].field, "title");
  EXPECT_EQ(plan->events[0].from, "Leaking tap");
  EXPECT_EQ(plan->events[1].type, IssueEvent::PRIORITY_CHANGED);
  EXPECT_EQ(plan->events[1].from, "MEDIUM");
  EXPECT_EQ(plan->events[1].to, "HIGH");
  EXPECT_EQ(plan->events[2].type, IssueEvent::ASSIGNEE_CHANGED);
  EXPECT_EQ(plan->events[2].to, "Jonas");
  EXPECT_FALSE(plan->first_response);  // field edits are not a response
}

TEST(PlanIssueUpdate, UnchangedValuesAndTheEtagAloneChangeNothing) {
  Issue patch = Current();
  auto plan = PlanIssueUpdate(Current(), patch, {"title", "priority", "etag", "id", "created_at", "timeline"}, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->changed);
  EXPECT_TRUE(plan->events.empty());
}

TEST(PlanIssueUpdate, StaleEtagsAreRefusedFromTheBodyOrIfMatch) {
  Issue patch;
  patch.set_title("New title");
  patch.set_etag(IssueEtag(Current().id(), 2));
  auto stale_body = PlanIssueUpdate(Current(), patch, {"title", "etag"}, "");
  EXPECT_EQ(stale_body.status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(ErrorReason(stale_body.status()), "ETAG_MISMATCH");

  patch.clear_etag();
  EXPECT_EQ(ErrorReason(PlanIssueUpdate(Current(), patch, {"title"}, "\"0123456789abcdef\"").status()),
            "ETAG_MISMATCH");
  const std::string etag = Current().etag();
  for (const std::string& header :
       {etag, "\"" + etag + "\"", "W/\"" + etag + "\"", std::string("*"), "\"other\", \"" + etag + "\""}) {
    EXPECT_TRUE(PlanIssueUpdate(Current(), patch, {"title"}, header).ok()) << header;
  }
  patch.set_etag(etag);
  EXPECT_TRUE(PlanIssueUpdate(Current(), patch, {"title", "etag"}, "").ok());
}

TEST(PlanIssueUpdate, BadInputIsReportedBeforeTheEtag) {
  Issue patch;
  patch.set_title("  ");
  patch.set_etag("stale");
  auto plan = PlanIssueUpdate(Current(), patch, {"title", "etag"}, "");
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ViolatedFields(plan.status()), std::vector<std::string>{"title"});
}

TEST(PlanIssueUpdate, StatusChangesFollowTheMachine) {
  Issue patch;
  patch.set_status(Issue::CLOSED);
  auto refused = PlanIssueUpdate(Current(Issue::OPEN), patch, {"status"}, "");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ErrorReason(refused.status()), "INVALID_TRANSITION");

  patch.set_status(Issue::IN_PROGRESS);
  auto started = PlanIssueUpdate(Current(Issue::OPEN), patch, {"status"}, "");
  ASSERT_TRUE(started.ok()) << started.status();
  EXPECT_TRUE(started->first_response);
  ASSERT_EQ(started->events.size(), 1u);
  EXPECT_EQ(started->events[0].type, IssueEvent::STATUS_CHANGED);
  EXPECT_EQ(started->events[0].from, "OPEN");
  EXPECT_EQ(started->events[0].to, "IN_PROGRESS");
  EXPECT_EQ(started->updated.allowed_transitions_size(), 2);  // ON_HOLD, RESOLVED
}

TEST(PlanIssueUpdate, OnHoldAndCancelledNeedAReasonWhichIsKept) {
  Issue patch;
  patch.set_status(Issue::ON_HOLD);
  auto missing = PlanIssueUpdate(Current(Issue::IN_PROGRESS), patch, {"status"}, "");
  EXPECT_EQ(ErrorReason(missing.status()), "REASON_REQUIRED");
  EXPECT_EQ(ViolatedFields(missing.status()), std::vector<std::string>{"reason"});

  patch.set_reason("Waiting for parts");
  auto held = PlanIssueUpdate(Current(Issue::IN_PROGRESS), patch, {"status", "reason"}, "");
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_EQ(held->updated.reason(), "Waiting for parts");
  EXPECT_EQ(held->events[0].note, "Waiting for parts");
  EXPECT_FALSE(held->first_response);  // not from OPEN

  Issue reason_only;
  reason_only.set_reason("why");
  EXPECT_EQ(ViolatedFields(PlanIssueUpdate(Current(), reason_only, {"reason"}, "").status()),
            std::vector<std::string>{"reason"});
}

TEST(PlanIssueUpdate, ResolvingSetsAndReopeningClearsResolvedAt) {
  Issue patch;
  patch.set_status(Issue::RESOLVED);
  auto resolved = PlanIssueUpdate(Current(Issue::IN_PROGRESS), patch, {"status"}, "");
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->resolved_at, ResolvedAtChange::kSet);
  patch.set_status(Issue::IN_PROGRESS);
  auto reopened = PlanIssueUpdate(Current(Issue::RESOLVED), patch, {"status"}, "");
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(reopened->resolved_at, ResolvedAtChange::kClear);
  patch.set_status(Issue::CLOSED);
  EXPECT_EQ(PlanIssueUpdate(Current(Issue::RESOLVED), patch, {"status"}, "")->resolved_at, ResolvedAtChange::kKeep);
}

TEST(PlanIssueUpdate, TheRoomIsTakenAndReturnedWithTheIssue) {
  Issue take;
  take.set_take_room_out_of_order(true);
  auto taken = PlanIssueUpdate(Current(), take, {"take_room_out_of_order"}, "");
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(taken->room, RoomChange::kTake);
  EXPECT_TRUE(taken->changed);

  Issue holding = Current(Issue::IN_PROGRESS);
  holding.set_take_room_out_of_order(true);
  Issue resolve;
  resolve.set_status(Issue::RESOLVED);
  auto resolved = PlanIssueUpdate(holding, resolve, {"status"}, "");
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->room, RoomChange::kRelease);
  EXPECT_FALSE(resolved->updated.take_room_out_of_order());

  Issue release;
  auto released = PlanIssueUpdate(holding, release, {"take_room_out_of_order"}, "");
  EXPECT_EQ(released->room, RoomChange::kRelease);

  // A closed issue cannot take the room.
  auto closed = PlanIssueUpdate(Current(Issue::RESOLVED), take, {"take_room_out_of_order"}, "");
  EXPECT_EQ(ErrorReason(closed.status()), "ISSUE_NOT_OPEN");
  // Nor can an issue being resolved in the same update.
  Issue both;
  both.set_status(Issue::RESOLVED);
  both.set_take_room_out_of_order(true);
  EXPECT_EQ(ErrorReason(PlanIssueUpdate(Current(), both, {"status", "take_room_out_of_order"}, "").status()),
            "ISSUE_NOT_OPEN");
}

TEST(PlanIssueUpdate, ACommentIsAFirstResponse) {
  Issue patch;
  patch.set_comment("Plumber booked for 3 pm");
  auto plan = PlanIssueUpdate(Current(), patch, {"comment"}, "");
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->events.size(), 1u);
  EXPECT_EQ(plan->events[0].type, IssueEvent::COMMENT);
  EXPECT_EQ(plan->events[0].note, "Plumber booked for 3 pm");
  EXPECT_TRUE(plan->first_response);
  Issue responded = Current();
  responded.mutable_first_response_at()->set_seconds(1);
  EXPECT_FALSE(PlanIssueUpdate(responded, patch, {"comment"}, "")->first_response);
}

TEST(PlanIssueUpdate, ImmutableUnknownAndInvalidFields) {
  Issue patch = Current();
  patch.set_property_id("LIS1");
  patch.set_reported_by("Someone else");
  EXPECT_EQ(
      ViolatedFields(PlanIssueUpdate(Current(), patch, {"property_id", "room_number", "reported_by"}, "").status()),
      (std::vector<std::string>{"property_id", "reported_by"}));
  EXPECT_EQ(ViolatedFields(PlanIssueUpdate(Current(), patch, {"colour"}, "").status()),
            std::vector<std::string>{"update_mask"});
  Issue bad;
  bad.set_category(static_cast<Issue::Category>(99));
  bad.set_priority(Issue::PRIORITY_UNSPECIFIED);
  bad.set_equipment_id("not-a-uuid");
  EXPECT_EQ(ViolatedFields(PlanIssueUpdate(Current(), bad, {"category", "priority", "equipment_id"}, "").status()),
            (std::vector<std::string>{"category", "priority", "equipment_id"}));
}

TEST(PlanIssueUpdate, AnEmptyMaskMeansTheNonDefaultFields) {
  Issue patch;
  patch.set_status(Issue::IN_PROGRESS);
  patch.set_assignee("Jonas");
  EXPECT_EQ(ImpliedUpdateMask(patch), (std::vector<std::string>{"status", "assignee"}));
  auto plan = PlanIssueUpdate(Current(), patch, {}, "");
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->events.size(), 2u);
}

TEST(PlanIssueUpdate, LongValuesAreAbbreviatedOnTheTimeline) {
  Issue patch;
  patch.set_description(std::string(400, 'x'));
  auto plan = PlanIssueUpdate(Current(), patch, {"description"}, "");
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->updated.description().size(), 400u);
  EXPECT_EQ(plan->events[0].to.size(), 120u);
  EXPECT_EQ(plan->events[0].to.substr(117), "...");
}

TEST(IssueEtag, ChangesWithTheVersionAndTheIssue) {
  EXPECT_EQ(IssueEtag("a", 1), IssueEtag("a", 1));
  EXPECT_NE(IssueEtag("a", 1), IssueEtag("a", 2));
  EXPECT_NE(IssueEtag("a", 1), IssueEtag("b", 1));
  EXPECT_EQ(IssueEtag("a", 1).size(), 16u);
}

}  // namespace
}  // namespace hotel::issues
