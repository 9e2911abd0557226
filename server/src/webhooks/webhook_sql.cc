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
  out->set_view(StoredView(row[c::kFullView].as<bool>(), row[c::kDiffView]));
  Webhook::State state = Webhook::STATE_UNSPECIFIED;
  Webhook::State_Parse(row[c::kState].as<std::string>(), &state);
  out->set_state(state);
  out->set_disabled_reason(row[c::kDisabledReason].as<std::string>());
  out->set_cursor(EncodeChangeCursor(row[c::kDeliveredThrough].as<int64_t>()));
  db::ReadTimestamp(row[c::kCreatedMicros], out->mutable_create_time());
  db::ReadTimestamp(row[c::kUpdatedMicros], out->mutable_update_time());
  hotel::v1::Change::RoomChanges room_changes = hotel::v1::Change::ROOM_CHANGES_UNSPECIFIED;
  hotel::v1::Change::RoomChanges_Parse(row[c::kRoomChanges].as<std::string>(), &room_changes);
  out->set_room_changes(room_changes);
}

hotel::v1::ChangeView StoredView(bool full_view, const pqxx::field& diff_view) {
  if (!full_view) return hotel::v1::CHANGE_VIEW_BASIC;
  return !diff_view.is_null() && diff_view.as<bool>() ? hotel::v1::CHANGE_VIEW_DIFF : hotel::v1::CHANGE_VIEW_FULL;
}

std::string FullViewColumn(hotel::v1::ChangeView view) {
  return view == hotel::v1::CHANGE_VIEW_FULL || view == hotel::v1::CHANGE_VIEW_DIFF ? "true" : "false";
}

std::string DiffViewColumn(hotel::v1::ChangeView view) {
  return view == hotel::v1::CHANGE_VIEW_DIFF ? "true" : "false";
}

void ReadDelivery(const pqxx::row& row, hotel::v1::WebhookDelivery* out) {
  namespace c = delivery_columns;
  out->set_id(row[c::kId].as<std::string>());
  out->set_message_id(row[c::kBatchId].as<std::string>());
  out->set_attempt(row[c::kAttempt].as<int>());
  db::ReadTimestamp(row[c::kAttemptedMicros], out->mutable_attempt_time());
  out->set_duration_ms(row[c::kDurationMs].as<int>());
  out->set_http_status(row[c::kHttpStatus].as<int>());
  out->set_error(row[c::kError].as<std::string>());
  out->set_response(row[c::kResponse].as<std::string>());
  out->set_after(EncodeChangeCursor(row[c::kCursorAfter].as<int64_t>()));
  out->set_through(EncodeChangeCursor(row[c::kCursorThrough].as<int64_t>()));
  out->set_succeeded(row[c::kSucceeded].as<bool>());
}

}  // namespace hotel::webhooks
