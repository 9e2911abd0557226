#include "changes/change_sql.h"

#include "absl/strings/str_cat.h"
#include "common/change_cursor.h"
#include "common/page_token.h"
#include "db/sql.h"
#include "db/timestamps.h"
#include "google/protobuf/util/json_util.h"

namespace hotel::changes {

using hotel::v1::Change;

ChangeRecord ReadChangeRecord(const pqxx::row& row) {
  namespace c = change_columns;
  ChangeRecord record;
  record.seq = row[c::kSeq].as<int64_t>();
  record.committed_micros = row[c::kCommittedMicros].as<int64_t>();
  record.resource_type = row[c::kResourceType].as<std::string>();
  record.resource_id = row[c::kResourceId].as<std::string>();
  record.property_id = row[c::kPropertyId].as<std::string>();
  record.kind = row[c::kKind].as<std::string>();
  record.changed_fields = db::ParseTextArray(row[c::kChangedFields].c_str());
  record.version = row[c::kVersion].as<std::string>();
  record.actor = row[c::kActor].as<std::string>();
  if (!row[c::kResource].is_null()) record.resource_json = row[c::kResource].as<std::string>();
  if (!row[c::kTraceId].is_null()) record.trace_id = row[c::kTraceId].as<std::string>();
  return record;
}

std::string ChangeEtag(const ChangeRecord& record) {
  if (record.resource_type == "ISSUE") {
    return FilterFingerprint(absl::StrCat("issue|", record.resource_id, "|", record.version));
  }
  // An image's etag (images/image_request.h, ImageEtag), from its row version (since 1.3.0).
  if (record.resource_type == "IMAGE") {
    return FilterFingerprint(absl::StrCat("image|", record.resource_id, "|", record.version));
  }
  return record.version;
}

absl::Status ToChangeProto(const ChangeRecord& record, bool full, Change* out) {
  out->set_cursor(EncodeChangeCursor(record.seq));
  db::SetMicros(record.committed_micros, out->mutable_committed_at());
  Change::ResourceType type = Change::RESOURCE_TYPE_UNSPECIFIED;
  Change::ResourceType_Parse(record.resource_type, &type);
  out->set_resource_type(type);
  out->set_resource_id(record.resource_id);
  out->set_property_id(record.property_id);
  Change::Kind kind = Change::KIND_UNSPECIFIED;
  Change::Kind_Parse(record.kind, &kind);
  out->set_kind(kind);
  for (const auto& field : record.changed_fields) out->add_changed_fields(field);
  out->set_etag(ChangeEtag(record));
  out->set_actor(record.actor);
  out->set_trace_id(record.trace_id);
  if (full && !record.resource_json.empty()) {
    auto status = google::protobuf::util::JsonStringToMessage(record.resource_json, out->mutable_resource());
    if (!status.ok()) return absl::InternalError(absl::StrCat("change ", record.seq, ": ", status.ToString()));
  }
  return absl::OkStatus();
}

absl::Status SerializeWatchResponse(const ChangeRecord& record, bool full, std::string* out) {
  hotel::v1::WatchChangesResponse message;
  absl::Status status = ToChangeProto(record, full, message.mutable_change());
  message.set_cursor(message.change().cursor());
  message.SerializeToString(out);
  return status;
}

}  // namespace hotel::changes
