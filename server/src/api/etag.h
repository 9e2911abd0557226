// Etags of stored resources and the optimistic-concurrency check of every update: the etag a
// client read (the body's etag field, or the If-Match header the gateway forwards) must name the
// current version, or the update is refused before anything is merged.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hotel::api {

// The etag of one stored version of a resource: opaque, 16 characters, the same in every process.
// kind names the resource ("issue", "room"), id the record, versions the row versions its
// representation is read from.
std::string VersionEtag(absl::string_view kind, absl::string_view id, std::initializer_list<int64_t> versions);

// An etag as a client may send it (quotes, W/ prefix, spaces) reduced to the bare value.
std::string NormalizeEtag(absl::string_view etag);

// Whether a client's etag (from the body or an If-Match header: several, quoted, W/ or *
// allowed) names the current etag.
bool EtagMatches(absl::string_view client_etag, absl::string_view current_etag);

// OK when body_etag and if_match are empty or name current; otherwise ABORTED ETAG_MISMATCH
// ("the <what> was changed since ...").
absl::Status CheckEtags(absl::string_view body_etag, absl::string_view if_match, absl::string_view current_etag,
                        absl::string_view what);

}  // namespace hotel::api
