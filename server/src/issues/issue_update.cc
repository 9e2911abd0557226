#include "issues/issue_update.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "api/etag.h"
#include "api/idempotency.h"
#include "api/identifiers.h"
#include "api/request_fields.h"
#include "common/errors.h"
#include "common/text_fields.h"
#include "issues/issue_request.h"
#include "issues/issue_state_machine.h"

namespace hotel::issues {
namespace {

using hotel::v1::Issue;
using hotel::v1::IssueEvent;

constexpr size_t kEventValueLength = 120;

// Output-only fields: ignored when a client sends a whole issue back.
const std::set<std::string>& OutputOnly() {
  static const std::set<std::string> kFields = {"id",          "created_at",          "updated_at",
                                                "resolved_at", "first_response_at",   "resolve_by",
                                                "overdue",     "allowed_transitions", "timeline"};
  return kFields;
}

const std::set<std::string>& Updatable() {
  static const std::set<std::string> kFields = {"title", "description", "category", "priority", "status", "reason",
                                                "assignee", "equipment_id", "take_room_out_of_order", "comment",
                                                "updated_by", "etag",
                                                // Immutable: accepted only with their current value.
                                                "property_id", "room_number", "reported_by"};
  return kFields;
}

std::string Abbreviate(absl::string_view text) {
  if (text.size() <= kEventValueLength) return std::string(text);
  size_t cut = kEventValueLength - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return absl::StrCat(text.substr(0, cut), "...");
}

std::string Trimmed(absl::string_view text) { return std::string(absl::StripAsciiWhitespace(text)); }

}  // namespace

std::vector<std::string> ImpliedUpdateMask(const Issue& patch) {
  std::vector<std::string> mask;
  auto add_if = [&](bool present, const char* name) {
    if (present) mask.push_back(name);
  };
  add_if(!patch.title().empty(), "title");
  add_if(!patch.description().empty(), "description");
  add_if(patch.category() != Issue::CATEGORY_UNSPECIFIED, "category");
  add_if(patch.priority() != Issue::PRIORITY_UNSPECIFIED, "priority");
  add_if(patch.status() != Issue::STATUS_UNSPECIFIED, "status");
  add_if(!patch.reason().empty(), "reason");
  add_if(!patch.assignee().empty(), "assignee");
  add_if(!patch.equipment_id().empty(), "equipment_id");
  add_if(patch.take_room_out_of_order(), "take_room_out_of_order");
  add_if(!patch.comment().empty(), "comment");
  add_if(!patch.updated_by().empty(), "updated_by");
  add_if(!patch.etag().empty(), "etag");
  return mask;
}

absl::StatusOr<IssueUpdatePlan> PlanIssueUpdate(const Issue& current, const Issue& patch,
                                                const std::vector<std::string>& mask_in, absl::string_view if_match) {
  const std::vector<std::string> mask_paths = mask_in.empty() ? ImpliedUpdateMask(patch) : mask_in;
  std::set<std::string> mask;
  FieldErrors errors;
  for (const auto& path : mask_paths) {
    const std::string top(absl::string_view(path).substr(0, path.find('.')));
    if (OutputOnly().count(top)) continue;
    if (!Updatable().count(path)) {
      errors.Add("update_mask", absl::StrCat("names an unknown or read-only field '", Abbreviate(path), "'"));
      continue;
    }
    mask.insert(path);
  }
  if (!errors.empty()) return errors.ToStatus();
  auto has = [&](const char* field) { return mask.count(field) > 0; };

  IssueUpdatePlan plan;
  plan.updated = current;
  plan.updated.clear_timeline();
  Issue& next = plan.updated;

  // Field values first: bad input is reported before any state-dependent check.
  for (const char* field : {"property_id", "room_number", "reported_by"}) {
    if (!has(field)) continue;
    const auto* f = Issue::descriptor()->FindFieldByName(field);
    const auto* reflection = Issue::GetReflection();
    if (reflection->GetString(patch, f) != reflection->GetString(current, f)) {
      errors.Add(field, "cannot be changed");
    }
  }
  std::string title, description, assignee, comment, reason, actor = "api";
  if (has("title")) {
    title = Trimmed(patch.title());
    if (title.empty()) errors.Add("title", "must not be empty");
    if (CodePoints(title) > api::kMaxTitleLength)
      errors.Add("title", absl::StrCat("must be at most ", api::kMaxTitleLength, " characters"));
  }
  if (has("description")) {
    description = Trimmed(patch.description());
    if (CodePoints(description) > api::kMaxTextLength) {
      errors.Add("description", absl::StrCat("must be at most ", api::kMaxTextLength, " characters"));
    }
  }
  if (has("assignee")) {
    assignee = Trimmed(patch.assignee());
    if (CodePoints(assignee) > api::kMaxNameLength)
      errors.Add("assignee", absl::StrCat("must be at most ", api::kMaxNameLength, " characters"));
  }
  if (has("comment")) {
    comment = Trimmed(patch.comment());
    if (CodePoints(comment) > api::kMaxTextLength)
      errors.Add("comment", absl::StrCat("must be at most ", api::kMaxTextLength, " characters"));
  }
  if (has("updated_by") && !Trimmed(patch.updated_by()).empty()) {
    actor = Trimmed(patch.updated_by());
    if (CodePoints(actor) > api::kMaxNameLength)
      errors.Add("updated_by", absl::StrCat("must be at most ", api::kMaxNameLength, " characters"));
  }
  if (has("reason")) {
    reason = Trimmed(patch.reason());
    if (CodePoints(reason) > api::kMaxTextLength)
      errors.Add("reason", absl::StrCat("must be at most ", api::kMaxTextLength, " characters"));
    if (!has("status")) errors.Add("reason", "is only accepted together with status");
  }
  if (has("category") &&
      (patch.category() == Issue::CATEGORY_UNSPECIFIED || !Issue::Category_IsValid(patch.category()))) {
    errors.Add("category", "must be a category such as PLUMBING or HVAC");
  }
  if (has("priority") &&
      (patch.priority() == Issue::PRIORITY_UNSPECIFIED || !Issue::Priority_IsValid(patch.priority()))) {
    errors.Add("priority", "must be one of LOW, MEDIUM, HIGH, URGENT");
  }
  if (has("status") && (patch.status() == Issue::STATUS_UNSPECIFIED || !Issue::Status_IsValid(patch.status()))) {
    errors.Add("status", "must be one of OPEN, IN_PROGRESS, ON_HOLD, RESOLVED, CLOSED, CANCELLED");
  }
  std::string equipment_id;
  if (has("equipment_id")) {
    equipment_id = absl::AsciiStrToLower(Trimmed(patch.equipment_id()));
    if (!equipment_id.empty() && !api::IsUuid(equipment_id)) errors.Add("equipment_id", "must be a UUID or empty");
  }
  if (!errors.empty()) return errors.ToStatus();

  // Optimistic concurrency: a stale etag is refused before anything is merged.
  if (auto s = api::CheckEtags(patch.etag(), if_match, current.etag(), "issue"); !s.ok()) return s;

  plan.actor = actor;
  next.set_updated_by(actor);
  auto field_event = [&](const char* field, const std::string& from, const std::string& to) {
    plan.events.push_back({IssueEvent::FIELD_CHANGED, field, Abbreviate(from), Abbreviate(to), ""});
  };

  if (has("status") && patch.status() != current.status()) {
    if (auto s = CheckTransition(current.status(), patch.status(), reason); !s.ok()) return s;
    plan.events.push_back({IssueEvent::STATUS_CHANGED, "", Issue::Status_Name(current.status()),
                           Issue::Status_Name(patch.status()), reason});
    next.set_status(patch.status());
    next.set_reason(reason);
    if (current.status() == Issue::OPEN) plan.first_response = true;
    if (patch.status() == Issue::RESOLVED) plan.resolved_at = ResolvedAtChange::kSet;
    if (current.status() == Issue::RESOLVED && patch.status() == Issue::IN_PROGRESS) {
      plan.resolved_at = ResolvedAtChange::kClear;
    }
  } else if (has("status") && has("reason") && reason != current.reason()) {
    field_event("reason", current.reason(), reason);
    next.set_reason(reason);
  }
  if (has("title") && title != current.title()) {
    field_event("title", current.title(), title);
    next.set_title(title);
  }
  if (has("description") && description != current.description()) {
    field_event("description", current.description(), description);
    next.set_description(description);
  }
  if (has("category") && patch.category() != current.category()) {
    field_event("category", Issue::Category_Name(current.category()), Issue::Category_Name(patch.category()));
    next.set_category(patch.category());
  }
  if (has("priority") && patch.priority() != current.priority()) {
    plan.events.push_back({IssueEvent::PRIORITY_CHANGED, "", Issue::Priority_Name(current.priority()),
                           Issue::Priority_Name(patch.priority()), ""});
    next.set_priority(patch.priority());
  }
  plan.resolution_target_seconds = absl::ToInt64Seconds(ResolutionTarget(next.priority()));
  if (has("assignee") && assignee != current.assignee()) {
    plan.events.push_back({IssueEvent::ASSIGNEE_CHANGED, "", current.assignee(), assignee, ""});
    next.set_assignee(assignee);
  }
  if (has("equipment_id") && equipment_id != current.equipment_id()) {
    field_event("equipment_id", current.equipment_id(), equipment_id);
    next.set_equipment_id(equipment_id);
    plan.equipment_changed = !equipment_id.empty();
  }

  // The room: an open issue may hold it; leaving the open statuses releases it.
  bool hold = current.take_room_out_of_order();
  if (has("take_room_out_of_order")) {
    if (patch.take_room_out_of_order() && !IsOpenStatus(next.status())) {
      return FailedPreconditionError("ISSUE_NOT_OPEN", absl::StrCat("a ", Issue::Status_Name(next.status()),
                                                                    " issue cannot take its room out of order"));
    }
    hold = patch.take_room_out_of_order();
  }
  if (!IsOpenStatus(next.status())) hold = false;
  if (hold != current.take_room_out_of_order()) {
    plan.room = hold ? RoomChange::kTake : RoomChange::kRelease;
    next.set_take_room_out_of_order(hold);
  }

  if (has("comment") && !comment.empty()) {
    plan.events.push_back({IssueEvent::COMMENT, "", "", "", comment});
    plan.first_response = true;
  }
  if (plan.first_response && current.has_first_response_at()) plan.first_response = false;
  next.clear_allowed_transitions();
  for (IssueStatus s : AllowedTransitions(next.status())) next.add_allowed_transitions(s);
  plan.changed = !plan.events.empty() || plan.room != RoomChange::kNone;
  return plan;
}

}  // namespace hotel::issues
