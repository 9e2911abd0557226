#include "webhooks/webhook_sql.h"

#include "common/change_cursor.h"
#include "db/sql.h"
#include "db/timestamps.h"

namespace hotel::webhooks {

using hotel::v1::Webhook;

void ReadWebhook(const pqxx::row& row, Webhook* out) {
  namespace c = webhook_columns;
  out->Clear();
  out->set_id(row[c::kId].as<std::string>());
  out->set_url(row[c::kUrl].as<std::string>());
  for (const auto& name : db::ParseTextArray(row[c::kResourceTypes].as<std::string>())) {
    hotel::v1::Change::ResourceType type;
    if (hotel::v1::Change::ResourceType_Parse(name, &type)) out->add_resource_type(type);
  }
  out->set_property_id(row[c::kPropertyId].as<std::string>());
  out->set_view(row[c::kFullView].as<bool>() ? hotel::v1::CHANGE_VIEW_FULL : hotel::v1::CHANGE_VIEW_BASIC);
  Webhook::State state = Webhook::STATE_UNSPECIFIED;
  Webhook::State_Parse(row[c::kState].as<std::string>(), &state);
  out->set_state(state);
  out->set_disabled_reason(row[c::kDisabledReason].as<std::string>());
  out->set_cursor(EncodeChangeCursor(row[c::kDeliveredThrough].as<int64_t>()));
  db::ReadTimestamp(row[c::kCreatedMicros], out->mutable_create_time());
  db::ReadTimestamp(row[c::kUpdatedMicros], out->mutable_update_time());
}

}  // namespace hotel::webhooks
