// The change feed's cursor (docs/changes.md): an opaque text a client passes back as `after`.
// Inside, a format version and the position in the change log (change_log.seq), so the format
// can change later without old cursors being misread. Its sibling, the consistency token
// (docs/consistency.md): a write's commit position in PostgreSQL's WAL, which a read hands back to be
// served by a replica only once it has replayed that far; same form, another version byte.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hotel {

// base64url (no padding) of one version byte and the position as 8 bytes, big-endian, sealed
// (common/token_seal.h).
std::string EncodeChangeCursor(int64_t position);

// The position a cursor names; INVALID_ARGUMENT naming field (reason INVALID_CURSOR) when it is
// not a cursor this service issued (any change to one is caught by its seal). The unsealed cursors
// of releases up to 1.3 are read as the positions they name through 1.x. The caller decides what an
// empty one means.
absl::StatusOr<int64_t> DecodeChangeCursor(absl::string_view field, absl::string_view cursor);

// How many unsealed (1.3) cursors this process has read: hotel_server_legacy_change_cursors_total.
int64_t UnsealedChangeCursorsRead();

std::string EncodeConsistencyToken(uint64_t wal_position);
// INVALID_ARGUMENT naming field (reason INVALID_CONSISTENCY_TOKEN) when not a token of this service
// (a change cursor is not one either).
absl::StatusOr<uint64_t> DecodeConsistencyToken(absl::string_view field, absl::string_view token);

}  // namespace hotel
