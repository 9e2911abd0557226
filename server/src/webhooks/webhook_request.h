// Validation of WebhookService requests into commands and queries (pure, unit-tested).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "changes/change_repository.h"
#include "hotel/v1/webhooks.pb.h"
#include "webhooks/webhook_url.h"

namespace hotel::webhooks {

// What a subscription wants of the feed: the feed's own filter and view.
struct WebhookSelection {
  changes::ChangeFilter filter;
  hotel::v1::ChangeView view = hotel::v1::CHANGE_VIEW_BASIC;  // never UNSPECIFIED
};

struct NewWebhook {
  std::string url;
  WebhookSelection selection;
  std::optional<int64_t> after;  // nullopt: from now
};

absl::StatusOr<NewWebhook> ValidateCreateWebhook(const hotel::v1::CreateWebhookRequest& request,
                                                 const AllowList& allow_list);

// An update applied to the current subscription: the result and what it changes.
struct WebhookUpdatePlan {
  hotel::v1::Webhook updated;
  WebhookSelection selection;  // of updated
  bool changed = false;
  bool url_changed = false;  // the new URL must answer a ping first
  bool resumed = false;      // state becomes ACTIVE: the cursor must still be kept
};

// Applies patch's fields named by mask (empty: every field set in patch) to current. Updatable:
// url, resource_type, property_id, view, room_changes (1.5.0), state (ACTIVE or PAUSED only).
absl::StatusOr<WebhookUpdatePlan> PlanWebhookUpdate(const hotel::v1::Webhook& current, const hotel::v1::Webhook& patch,
                                                    const std::vector<std::string>& mask, const AllowList& allow_list);

struct WebhookListQuery {
  int page_size = 0;
  std::vector<std::string> after;  // page key: created_at micros, id
};
std::string Fingerprint(const WebhookListQuery& query);

absl::StatusOr<WebhookListQuery> ParseListWebhooks(const hotel::v1::ListWebhooksRequest& request);

struct DeliveryListQuery {
  std::string webhook_id;
  bool failures_only = false;
  int page_size = 0;
  std::vector<std::string> after;  // page key: the last attempt's id
};
std::string Fingerprint(const DeliveryListQuery& query);

absl::StatusOr<DeliveryListQuery> ParseListWebhookDeliveries(const hotel::v1::ListWebhookDeliveriesRequest& request);

inline constexpr int kDefaultGraceSeconds = 86400;
inline constexpr int kMaxGraceSeconds = 7 * 86400;

struct SecretRotation {
  std::string id;
  absl::Duration grace;
};
absl::StatusOr<SecretRotation> ParseRotateWebhookSecret(const hotel::v1::RotateWebhookSecretRequest& request);

struct Replay {
  std::string id;
  int64_t after = 0;
};
absl::StatusOr<Replay> ParseReplayWebhook(const hotel::v1::ReplayWebhookRequest& request);

struct Resend {
  std::string id;
  int64_t delivery_id = 0;
};
absl::StatusOr<Resend> ParseResendWebhookDelivery(const hotel::v1::ResendWebhookDeliveryRequest& request);

// The state's stored name ("ACTIVE", ...) and back.
std::string StateName(hotel::v1::Webhook::State state);

}  // namespace hotel::webhooks
