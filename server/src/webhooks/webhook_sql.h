// The webhooks table's rows (migrations 0014, 0021) and their reader.
#pragma once

#include <pqxx/pqxx>
#include <string>

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
  kDiffView,
  kState,
  kDisabledReason,
  kDeliveredThrough,
  kCreatedMicros,
  kUpdatedMicros,
  kRoomChanges,
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

// A subscription's view as stored in full_view and diff_view (migration 0021): DIFF sets both, so
// that a server of an earlier release, which knows full_view only, delivers it as FULL, the
// nearest it has; diff_view without full_view (an earlier release set BASIC) is BASIC. diff_view is
// null in rows an earlier release inserted.
hotel::v1::ChangeView StoredView(bool full_view, const pqxx::field& diff_view);
// The values of full_view and diff_view ("true"/"false") that store view.
std::string FullViewColumn(hotel::v1::ChangeView view);
std::string DiffViewColumn(hotel::v1::ChangeView view);

// A subscription without its secret.
void ReadWebhook(const pqxx::row& row, hotel::v1::Webhook* out);

}  // namespace hotel::webhooks
