#include "changes/change_sql.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/change_cursor.h"
#include "common/page_token.h"
#include "db/sql.h"
#include "db/timestamps.h"
#include "google/protobuf/util/json_util.h"
#include "housekeeping/housekeeping_repository.h"

namespace hotel::changes {

using hotel::v1::Change;
using hotel::v1::ChangeView;

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
  if (!row[c::kPrevious].is_null()) record.previous_json = row[c::kPrevious].as<std::string>();
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
  // A housekeeping policy's etag (1.5.0), from its row version.
  if (record.resource_type == "HOUSEKEEPING_POLICY") {
    int64_t version = 0;
    if (absl::SimpleAtoi(record.version, &version)) return housekeeping::PolicyEtag(record.resource_id, version);
  }
  return record.version;
}

namespace {

// The fields every view has.
void SetBasic(const ChangeRecord& record, Change* out) {
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
}

absl::Status ParseStruct(const ChangeRecord& record, const std::string& json, google::protobuf::Struct* out) {
  auto status = google::protobuf::util::JsonStringToMessage(json, out);
  if (!status.ok()) return absl::InternalError(absl::StrCat("change ", record.seq, ": ", status.ToString()));
  return absl::OkStatus();
}

// FULL: the stored record after the change.
absl::Status SetFull(const ChangeRecord& record, Change* out) {
  if (record.resource_json.empty()) return absl::OkStatus();
  return ParseStruct(record, record.resource_json, out->mutable_resource());
}

// A FULL change made DIFF (see ToChangeProto).
absl::Status FullToDiff(const ChangeRecord& record, Change* out) {
  if (record.kind == "DELETED") {
    if (out->has_resource()) out->mutable_previous()->Swap(out->mutable_resource());
    out->clear_resource();
  } else if (record.kind == "UPDATED") {
    if (out->has_resource()) {
      google::protobuf::Struct after;
      auto& stored = *out->mutable_resource()->mutable_fields();
      for (const auto& field : record.changed_fields) {
        auto it = stored.find(field);
        if (it != stored.end()) (*after.mutable_fields())[field].Swap(&it->second);
      }
      out->mutable_resource()->Swap(&after);
    }
    if (!record.previous_json.empty()) return ParseStruct(record, record.previous_json, out->mutable_previous());
  }
  return absl::OkStatus();  // CREATED: the whole record, nothing before it
}

}  // namespace

bool ViewReadsResource(ChangeView view) {
  return view == hotel::v1::CHANGE_VIEW_FULL || view == hotel::v1::CHANGE_VIEW_DIFF;
}

bool ViewReadsPrevious(ChangeView view) { return view == hotel::v1::CHANGE_VIEW_DIFF; }

absl::Status ToChangeProto(const ChangeRecord& record, ChangeView view, Change* out) {
  SetBasic(record, out);
  if (!ViewReadsResource(view)) return absl::OkStatus();
  if (auto s = SetFull(record, out); !s.ok()) return s;
  if (view == hotel::v1::CHANGE_VIEW_DIFF) return FullToDiff(record, out);
  return absl::OkStatus();
}

absl::Status SerializeWatchResponse(const ChangeRecord& record, ChangeView view, std::string* out) {
  hotel::v1::WatchChangesResponse message;
  absl::Status status = ToChangeProto(record, view, message.mutable_change());
  message.set_cursor(message.change().cursor());
  message.SerializeToString(out);
  return status;
}

const std::string& WatchResponseViews::of(ChangeView view) const {
  switch (view) {
    case hotel::v1::CHANGE_VIEW_FULL:
      return full;
    case hotel::v1::CHANGE_VIEW_DIFF:
      return diff;
    default:
      return basic;
  }
}

absl::Status SerializeWatchResponses(const ChangeRecord& record, WatchResponseViews* out) {
  // One message, changed in place from view to view: the stored JSON is parsed once.
  hotel::v1::WatchChangesResponse message;
  Change* change = message.mutable_change();
  SetBasic(record, change);
  message.set_cursor(change->cursor());
  message.SerializeToString(&out->basic);
  absl::Status status = SetFull(record, change);
  message.SerializeToString(&out->full);
  if (status.ok()) status = FullToDiff(record, change);
  message.SerializeToString(&out->diff);
  return status;
}

}  // namespace hotel::changes
