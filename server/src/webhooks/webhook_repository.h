// Webhook subscriptions in PostgreSQL (migration 0014).
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "changes/change_repository.h"
#include "db/pool.h"
#include "hotel/v1/webhooks.pb.h"
#include "webhooks/webhook_request.h"

namespace hotel::webhooks {

// The batch in flight of a subscription, frozen at its first attempt.
struct FrozenBatch {
  std::string id;  // webhook-id
  int64_t through = 0;
  std::string body;
  int attempts = 0;  // failed attempts so far
};

// One sender's lease on one subscription: what it needs to deliver, and the fencing token.
struct Lease {
  std::string id;
  int64_t token = 0;
  std::string url;
  std::string secret;
  std::string previous_secret;  // during a rotation's grace period; empty otherwise
  WebhookSelection selection;
  int64_t delivered_through = 0;
  std::optional<FrozenBatch> batch;
};

// A logged delivery, to send again: the subscription's destination and secrets in lease, the
// batch's id and cursor range.
struct LoggedBatch {
  Lease lease;  // id, url, secrets, selection (no token: a resend moves no cursor)
  std::string message_id;
  int64_t after = 0;
  int64_t through = 0;
};

// One attempt's outcome, for the delivery log.
struct AttemptRecord {
  int number = 0;  // 1 for a batch's first attempt
  absl::Time at;
  int64_t duration_ms = 0;
  int status = 0;
  std::string error;     // error class when there was no HTTP answer
  std::string response;  // first bytes of the answer
};

// One subscription's state and delivery lag, for the metrics.
struct WebhookStat {
  std::string id;
  std::string state;
  double lag_seconds = 0;
};

class WebhookRepository {
 public:
  WebhookRepository(db::ConnectionPool& pool, changes::ChangeRepository& change_log)
      : pool_(pool), change_log_(change_log) {}

  // Where a new subscription starts: after `after` (CURSOR_EXPIRED when the log no longer keeps
  // what follows it; INVALID_ARGUMENT naming `after` when it is ahead of the log), or the log's
  // head (from now).
  absl::StatusOr<int64_t> StartPosition(const std::optional<int64_t>& after);
  // Inserts the subscription; out is it with the secret.
  absl::Status Create(const NewWebhook& webhook, const std::string& secret, int64_t start, hotel::v1::Webhook* out);
  // NOT_FOUND WEBHOOK_NOT_FOUND when there is none.
  absl::Status Get(const std::string& id, hotel::v1::Webhook* out);
  absl::Status List(const WebhookListQuery& query, hotel::v1::ListWebhooksResponse* out);
  // Stores plan.updated unless the subscription changed since `current` was read (ABORTED
  // CONCURRENT_UPDATE then); a resume checks that the cursor is still kept (CURSOR_EXPIRED).
  absl::Status Update(const hotel::v1::Webhook& current, const WebhookUpdatePlan& plan, hotel::v1::Webhook* out);
  absl::Status Delete(const std::string& id);
  // Delivery (WebhookSender). Each write presents the lease's fencing token and does nothing
  // (false) when another sender has taken the subscription over since.
  // Leases one due subscription to owner for `lease`; nullopt when none is due.
  absl::StatusOr<std::optional<Lease>> Claim(const std::string& owner, absl::Duration lease);
  // The changes after the lease's cursor that its filter matches (at most limit), and where the
  // read ended (*scanned: the last change's seq on a full read, else the log's head).
  absl::StatusOr<std::vector<changes::ChangeRecord>> ReadChanges(const Lease& lease, int limit, int64_t* scanned);
  absl::StatusOr<bool> FreezeBatch(const Lease& lease, const FrozenBatch& batch);
  // Nothing matched up to through: the cursor moves there.
  absl::StatusOr<bool> Skip(const Lease& lease, int64_t through);
  // The batch was answered 2xx: the cursor advances to its end and the attempt is logged, in one
  // transaction.
  absl::StatusOr<bool> RecordSuccess(const Lease& lease, const AttemptRecord& attempt);
  // The batch failed: the next attempt waits `retry_in`, or with disable the subscription is
  // disabled (reason); the attempt is logged.
  absl::StatusOr<bool> RecordFailure(const Lease& lease, const AttemptRecord& attempt, absl::Duration retry_in,
                                     bool disable, const std::string& reason);
  absl::Status Release(const Lease& lease);
  // Every subscription's state and lag (the age of its oldest undelivered change).
  absl::StatusOr<std::vector<WebhookStat>> Stats();
  // Disables the subscription for reason (its cursor is no longer kept).
  absl::StatusOr<bool> Disable(const Lease& lease, const std::string& reason);

  // A page of the delivery log (NOT_FOUND when there is no such subscription).
  absl::Status ListDeliveries(const DeliveryListQuery& query, hotel::v1::ListWebhookDeliveriesResponse* out);

  // A new secret; out holds it. The current one keeps signing for grace.
  absl::Status RotateSecret(const std::string& id, const std::string& secret, absl::Duration grace,
                            hotel::v1::Webhook* out);
  // Delivers again after `after` (StartPosition's checks); fences any sender in the middle of a
  // delivery.
  absl::Status Replay(const std::string& id, int64_t after, hotel::v1::Webhook* out);

  // A logged delivery (NOT_FOUND WEBHOOK_DELIVERY_NOT_FOUND) and the changes of its range as the
  // feed has them now, with the subscription's current filter (CURSOR_EXPIRED when pruned).
  absl::StatusOr<LoggedBatch> LoggedDelivery(const std::string& id, int64_t delivery_id);
  absl::StatusOr<std::vector<changes::ChangeRecord>> ReadRange(const LoggedBatch& batch);
  // Logs a resend (attempt 0); out is its entry.
  absl::Status LogResend(const LoggedBatch& batch, const AttemptRecord& attempt, bool succeeded,
                         hotel::v1::WebhookDelivery* out);

  // The signing secret (NOT_FOUND when there is no such subscription).
  absl::StatusOr<std::string> Secret(const std::string& id);

 private:
  db::ConnectionPool& pool_;
  changes::ChangeRepository& change_log_;
};

// NOT_FOUND WEBHOOK_NOT_FOUND naming id.
absl::Status WebhookNotFound(const std::string& id);

}  // namespace hotel::webhooks
