// Etags of stored resources and the optimistic-concurrency check of every update: the etag a
// client read (the body's etag field, or the If-Match header the gateway forwards) must name the
// current version, or the update is refused before anything is merged.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace hotel::api {

// The etag of one stored version of a resource: opaque, 16 characters, the same in every process.
// kind names the resource ("issue", "room"), id the record, versions the row versions its
// representation is read from.
std::string VersionEtag(absl::string_view kind, absl::string_view id, std::initializer_list<int64_t> versions);

// An etag as a client may send it (quotes, W/ prefix, spaces) reduced to the bare value.
std::string NormalizeEtag(absl::string_view etag);

// Whether a client's etag (from the body or an If-Match header: several, quoted, W/ or *
// allowed) names the current etag. An etag of a representation with parts (RepresentationEtag)
// names each of its parts: a room's HTTP ETag passes the room data's check and the housekeeping's,
// each on its own part (1.5.0).
bool EtagMatches(absl::string_view client_etag, absl::string_view current_etag);

// The HTTP ETag of a resource's representation: its etag field, then, joined by ".", the etags of
// its parts that have their own (a room's housekeeping, 1.5.0), so it changes with any of them
// while each write checks its own part. "" when the resource has no etag.
std::string RepresentationEtag(const google::protobuf::Message& resource);

// OK when body_etag and if_match are empty or name current; otherwise ABORTED ETAG_MISMATCH
// ("the <what> was changed since ...").
absl::Status CheckEtags(absl::string_view body_etag, absl::string_view if_match, absl::string_view current_etag,
                        absl::string_view what);

}  // namespace hotel::api
