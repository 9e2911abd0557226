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

// A subscription without its secret.
void ReadWebhook(const pqxx::row& row, hotel::v1::Webhook* out);

}  // namespace hotel::webhooks
