// Idempotent creates: a client may send request_id with a create; a retry with the same id
// returns what the first request created, and the same id with another request is refused.
// The id is stored with a fingerprint of the request that used it.
#pragma once

#include <pqxx/pqxx>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/errors.h"
#include "db/pool.h"
#include "google/protobuf/message.h"

namespace hotel::api {

// Adds a violation for a malformed request_id (empty is fine: no idempotency).
void CheckRequestId(absl::string_view request_id, FieldErrors& errors);
// Stable fingerprint of a request message, stored with its request_id so that reusing the id for
// another request is detected.
std::string RequestFingerprint(const google::protobuf::Message& request);
// FAILED_PRECONDITION, reason REQUEST_ID_REUSED.
absl::Status RequestIdReusedError();

// Looks up the record a request_id created, with find_statement (the area's
// sql/find_*_request.sql: $1 request id → id, request_hash): OK with its id in *id (empty when
// none), or REQUEST_ID_REUSED when the id was used for another request.
absl::Status FindRequest(db::Session& session, pqxx::transaction_base& txn, absl::string_view find_statement,
                         const std::string& request_id, const std::string& request_hash, std::string* id);

}  // namespace hotel::api
