// The change log's rows (migration 0011): their reader, and how one becomes a hotel.v1.Change.
#pragma once

#include <cstdint>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hotel/v1/changes.pb.h"

namespace hotel::changes {

// The columns of sql/list_changes.sql, in order: readers use these names, never numbers.
namespace change_columns {
enum : int {
  kHead,
  kPrunedThrough,
  kAfterKnown,
  kWalPosition,
  kSeq,
  kCommittedMicros,
  kResourceType,
  kResourceId,
  kPropertyId,
  kKind,
  kChangedFields,
  kVersion,
  kActor,
  kResource,
  kTraceId,
  kCount
};
}  // namespace change_columns

// One change as stored; shared read-only by every watcher it is fanned out to.
struct ChangeRecord {
  int64_t seq = 0;
  int64_t committed_micros = 0;
  std::string resource_type;  // Change.ResourceType name
  std::string resource_id;
  std::string property_id;
  std::string kind;  // Change.Kind name
  std::vector<std::string> changed_fields;
  std::string version;  // row version or digest (see Etag)
  std::string actor;
  std::string resource_json;  // the stored record; empty unless read with it
  std::string trace_id;       // of the request that made the change; empty when unknown
};

// A row of sql/list_changes.sql that has a change (seq not null).
ChangeRecord ReadChangeRecord(const pqxx::row& row);

// The resource's etag after the change: an issue's is its `etag` field (issues/issue_sql.cc
// IssueEtag, the same formula), the others' the stored version or digest.
std::string ChangeEtag(const ChangeRecord& record);

// The API message; with full, the stored record as a Struct.
absl::Status ToChangeProto(const ChangeRecord& record, bool full, hotel::v1::Change* out);

// The record as a serialized hotel.v1.WatchChangesResponse (the change and its cursor), what a
// watch stream writes. On error out holds the message as far as it was converted.
absl::Status SerializeWatchResponse(const ChangeRecord& record, bool full, std::string* out);

}  // namespace hotel::changes
