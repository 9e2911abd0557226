#include "issues/issue_update.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "api/etag.h"
#include "api/idempotency.h"
#include "api/request_fields.h"
#include "api/update_mask.h"
#include "common/errors.h"
#include "issues/issue_request.h"
#include "issues/issue_state_machine.h"

namespace hotel::issues {
namespace {

using hotel::v1::Issue;
using hotel::v1::IssueEvent;

constexpr size_t kEventValueLength = 120;

// The fields an update may name; the rest of an issue is output-only, ignored when a client sends
// a whole issue back.
const std::set<std::string>& Updatable() {
  static const std::set<std::string> kFields = {"title",    "description",  "category",
                                                "priority", "status",       "reason",
                                                "assignee", "equipment_id", "take_room_out_of_order",
                                                "comment",  "updated_by",   "etag"};
  return kFields;
}

// Accepted only with their current value.
const std::set<std::string>& Immutable() {
  static const std::set<std::string> kFields = {"property_id", "room_number", "reported_by"};
  return kFields;
}

std::string Abbreviate(absl::string_view text) {
  if (text.size() <= kEventValueLength) return std::string(text);
  size_t cut = kEventValueLength - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return absl::StrCat(text.substr(0, cut), "...");
}

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
  FieldErrors errors;
  const std::set<std::string> mask = api::ResolveUpdateMask(
      current, patch, mask_in.empty() ? ImpliedUpdateMask(patch) : mask_in, Updatable(), Immutable(), errors);
  if (!errors.empty()) return errors.ToStatus();
  auto has = [&](const char* field) { return mask.count(field) > 0; };

  IssueUpdatePlan plan;
  plan.updated = current;
  plan.updated.clear_timeline();
  Issue& next = plan.updated;

  // Field values first: bad input is reported before any state-dependent check. The values as
  // creation reads them (api/request_fields.h), for the fields the mask names.
  std::string title, description, assignee, comment, reason, actor = "api";
  if (has("title")) title = api::Text("title", patch.title(), api::kMaxTitleLength, true, errors);
  if (has("description")) {
    description = api::Text("description", patch.description(), api::kMaxTextLength, false, errors);
  }
  if (has("assignee")) assignee = api::Text("assignee", patch.assignee(), api::kMaxNameLength, false, errors);
  if (has("comment")) comment = api::Text("comment", patch.comment(), api::kMaxTextLength, false, errors);
  if (has("updated_by")) {
    std::string by = api::Text("updated_by", patch.updated_by(), api::kMaxNameLength, false, errors);
    if (!by.empty()) actor = std::move(by);
  }
  if (has("reason")) {
    reason = api::Text("reason", patch.reason(), api::kMaxTextLength, false, errors);
    if (!has("status")) errors.Add("reason", "is only accepted together with status");
  }
  if (has("category")) api::RequiredEnumField<Issue::Category>("category", patch.category(), errors);
  if (has("priority")) api::RequiredEnumField<Issue::Priority>("priority", patch.priority(), errors);
  if (has("status")) api::RequiredEnumField<Issue::Status>("status", patch.status(), errors);
  std::string equipment_id;
  if (has("equipment_id")) {
    equipment_id = api::OptionalUuid("equipment_id", absl::StripAsciiWhitespace(patch.equipment_id()), errors);
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
