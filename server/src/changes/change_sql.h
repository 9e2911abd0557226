// The change log's rows (migrations 0011, 0013, 0021): their reader, and how one becomes a
// hotel.v1.Change in each view (the one place the views are made: the feed, its watchers and the
// webhooks all go through ToChangeProto).
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
  kPrevious,
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
  // For an update, the changed fields' stored values before it (migration 0021); empty unless read
  // with it, and for changes logged before that migration.
  std::string previous_json;
};

// A row of sql/list_changes.sql that has a change (seq not null).
ChangeRecord ReadChangeRecord(const pqxx::row& row);

// The resource's etag after the change: an issue's is its `etag` field (issues/issue_sql.cc
// IssueEtag, the same formula), the others' the stored version or digest.
std::string ChangeEtag(const ChangeRecord& record);

// What a view needs read from the log besides the change: the stored record (FULL and DIFF) and
// the previous values (DIFF).
bool ViewReadsResource(hotel::v1::ChangeView view);
bool ViewReadsPrevious(hotel::v1::ChangeView view);

// The API message in a view (BASIC for UNSPECIFIED), from a record read for that view:
// - BASIC: no `resource`, no `previous`;
// - FULL: `resource` is the stored record after the change;
// - DIFF: for UPDATED, `resource` holds the stored record's values of changed_fields and
//   `previous` their values before (unset when the log has none: changes logged before migration
//   0021); for CREATED, `resource` is the whole record; for DELETED, `previous` is the whole record
//   as last stored (what the log keeps as `resource` of a deletion) and `resource` is unset.
absl::Status ToChangeProto(const ChangeRecord& record, hotel::v1::ChangeView view, hotel::v1::Change* out);

// The record as a serialized hotel.v1.WatchChangesResponse (the change and its cursor), what a
// watch stream writes. On error out holds the message as far as it was converted.
absl::Status SerializeWatchResponse(const ChangeRecord& record, hotel::v1::ChangeView view, std::string* out);

// A change as a serialized hotel.v1.WatchChangesResponse in every view, converting its stored JSON
// once (the hub's fan-out): the same bytes as SerializeWatchResponse in each view.
struct WatchResponseViews {
  std::string basic;
  std::string full;
  std::string diff;
  const std::string& of(hotel::v1::ChangeView view) const;
};
absl::Status SerializeWatchResponses(const ChangeRecord& record, WatchResponseViews* out);

}  // namespace hotel::changes
