#include "webhooks/webhook_request.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/identifiers.h"
#include "api/paging.h"
#include "api/request_fields.h"
#include "api/update_mask.h"
#include "common/change_cursor.h"
#include "common/errors.h"
#include "common/page_token.h"

namespace hotel::webhooks {

namespace {

using hotel::v1::Change;
using hotel::v1::Webhook;

// The filter and view of a request or a subscription; a violation per bad field.
template <typename Message>
WebhookSelection ReadSelection(const Message& message, FieldErrors& errors) {
  WebhookSelection selection;
  selection.view = changes::ReadChangeSelection(message, selection.filter, errors);
  return selection;
}

// The allow-list's refusal keeps its own reason when it is the only problem.
void CollectUrl(absl::string_view url, const AllowList& allow_list, FieldErrors& errors, absl::Status* refusal) {
  absl::Status s = CheckDestination("url", url, allow_list);
  if (ErrorReason(s) == "WEBHOOK_URL_NOT_ALLOWED") {
    *refusal = s;
    return;
  }
  api::Collect(s, errors);
}

absl::Status Finish(const FieldErrors& errors, const absl::Status& refusal) {
  if (!errors.empty()) return changes::SelectionErrors(errors);
  return refusal;
}

}  // namespace

std::string StateName(Webhook::State state) { return Webhook::State_Name(state); }

absl::StatusOr<NewWebhook> ValidateCreateWebhook(const hotel::v1::CreateWebhookRequest& request,
                                                 const AllowList& allow_list) {
  FieldErrors errors;
  absl::Status refusal;
  NewWebhook webhook;
  CollectUrl(request.url(), allow_list, errors, &refusal);
  webhook.url = request.url();
  webhook.selection = ReadSelection(request, errors);
  if (!request.after().empty()) {
    auto position = DecodeChangeCursor("after", request.after());
    if (position.ok()) webhook.after = *position;
    api::Collect(position.status(), errors);
  }
  if (auto s = Finish(errors, refusal); !s.ok()) return s;
  return webhook;
}

absl::StatusOr<WebhookUpdatePlan> PlanWebhookUpdate(const Webhook& current, const Webhook& patch,
                                                    const std::vector<std::string>& mask, const AllowList& allow_list) {
  FieldErrors errors;
  const std::set<std::string> fields = api::ResolveUpdateMask(
      current, patch, mask, {"url", "resource_type", "property_id", "view", "room_changes", "state"}, {"id"}, errors);
  if (!errors.empty()) return errors.ToStatus();
  WebhookUpdatePlan plan;
  plan.updated = current;
  plan.changed = api::CopyFields(patch, fields, &plan.updated);
  absl::Status refusal;
  if (fields.count("url")) CollectUrl(plan.updated.url(), allow_list, errors, &refusal);
  plan.selection = ReadSelection(plan.updated, errors);
  if (fields.count("state")) {
    const auto state = plan.updated.state();
    if (state != Webhook::ACTIVE && state != Webhook::PAUSED) {
      errors.Add("state", "may be set to ACTIVE (resume) or PAUSED only");
    }
  }
  if (auto s = Finish(errors, refusal); !s.ok()) return s;
  plan.url_changed = plan.updated.url() != current.url();
  plan.resumed = plan.updated.state() == Webhook::ACTIVE && current.state() != Webhook::ACTIVE;
  if (plan.resumed) plan.updated.clear_disabled_reason();
  return plan;
}

std::string Fingerprint(const WebhookListQuery&) { return FilterFingerprint("webhooks"); }

absl::StatusOr<WebhookListQuery> ParseListWebhooks(const hotel::v1::ListWebhooksRequest& request) {
  FieldErrors errors;
  WebhookListQuery query;
  if (auto s = api::ApplyPaging(request, "webhooks", {2, 0, 1}, Fingerprint(query), query, errors); !s.ok()) return s;
  return query;
}

std::string Fingerprint(const DeliveryListQuery& query) {
  return FilterFingerprint(absl::StrCat(query.webhook_id, "|", query.failures_only ? "failures" : "all"));
}

absl::StatusOr<DeliveryListQuery> ParseListWebhookDeliveries(const hotel::v1::ListWebhookDeliveriesRequest& request) {
  FieldErrors errors;
  DeliveryListQuery query;
  api::Collect(api::ValidateUuid("id", request.id()), errors);
  query.webhook_id = absl::AsciiStrToLower(request.id());
  query.failures_only = request.failures_only();
  const api::PageKeyShape shape{1};
  if (auto s = api::ApplyPaging(request, "webhook_deliveries", shape, Fingerprint(query), query, errors); !s.ok())
    return s;
  int64_t id = 0;
  if (!query.after.empty() && !absl::SimpleAtoi(query.after[0], &id)) return InvalidPageToken();
  return query;
}

absl::StatusOr<SecretRotation> ParseRotateWebhookSecret(const hotel::v1::RotateWebhookSecretRequest& request) {
  FieldErrors errors;
  api::Collect(api::ValidateUuid("id", request.id()), errors);
  if (request.grace_seconds() < 0 || request.grace_seconds() > kMaxGraceSeconds) {
    errors.Add("grace_seconds", absl::StrCat("must be from 0 (the default, a day) to ", kMaxGraceSeconds));
  }
  if (!errors.empty()) return errors.ToStatus();
  return SecretRotation{absl::AsciiStrToLower(request.id()),
                        absl::Seconds(request.grace_seconds() > 0 ? request.grace_seconds() : kDefaultGraceSeconds)};
}

absl::StatusOr<Replay> ParseReplayWebhook(const hotel::v1::ReplayWebhookRequest& request) {
  FieldErrors errors;
  api::Collect(api::ValidateUuid("id", request.id()), errors);
  Replay replay{absl::AsciiStrToLower(request.id()), 0};
  if (request.after().empty()) {
    errors.Add("after", "is required: the cursor to deliver after");
  } else {
    auto position = DecodeChangeCursor("after", request.after());
    if (position.ok()) replay.after = *position;
    api::Collect(position.status(), errors);
  }
  if (!errors.empty()) return changes::SelectionErrors(errors);
  return replay;
}

absl::StatusOr<Resend> ParseResendWebhookDelivery(const hotel::v1::ResendWebhookDeliveryRequest& request) {
  FieldErrors errors;
  api::Collect(api::ValidateUuid("id", request.id()), errors);
  Resend resend{absl::AsciiStrToLower(request.id()), 0};
  if (!absl::SimpleAtoi(request.delivery_id(), &resend.delivery_id) || resend.delivery_id < 1) {
    errors.Add("delivery_id", "must be the id of a logged delivery (a positive number)");
  }
  if (!errors.empty()) return errors.ToStatus();
  return resend;
}

}  // namespace hotel::webhooks
