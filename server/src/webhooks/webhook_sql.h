// The webhooks table's rows (migration 0014) and their reader.
#pragma once

#include <pqxx/pqxx>

#include "hotel/v1/webhooks.pb.h"

namespace hotel::webhooks {

// The columns of sql/_webhook_columns.sql, in order: readers use these names, never numbers.
namespace webhook_columns {
enum : int {
  kId,
  kUrl,
  kResourceTypes,
  kPropertyId,
  kFullView,
  kState,
  kDisabledReason,
  kDeliveredThrough,
  kCreatedMicros,
  kUpdatedMicros,
  kCount
};
}  // namespace webhook_columns

// The columns of sql/list_webhook_deliveries.sql, in order.
namespace delivery_columns {
enum : int {
  kId,
  kBatchId,
  kAttempt,
  kAttemptedMicros,
  kDurationMs,
  kHttpStatus,
  kError,
  kResponse,
  kCursorAfter,
  kCursorThrough,
  kSucceeded,
  kCount
};
}  // namespace delivery_columns

void ReadDelivery(const pqxx::row& row, hotel::v1::WebhookDelivery* out);

// A subscription without its secret.
void ReadWebhook(const pqxx::row& row, hotel::v1::Webhook* out);

}  // namespace hotel::webhooks
