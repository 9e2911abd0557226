// Idempotent writes: a client may send request_id with a create (or a housekeeping write); a
// retry with the same id answers what the first request did, and the same id with another request
// is refused. The id is stored with a fingerprint of the request that used it.
//
// Two algorithms, each for the writes it fits:
// - InsertOnce, for a create that is one insert into a table with the request_id in a unique
//   column: the insert itself claims the id, and the reason it inserted nothing is looked up after.
// - ClaimRequest, for a write that is not that one insert: one that runs checks or several
//   statements before it writes (rooms' creates, whose three kinds of record share one table of
//   request ids) or that changes rows it does not create (housekeeping). It claims the id in a
//   table of request ids first, in the write's transaction, so a retry waits for the first
//   request's transaction to end and then finds what it did.
#pragma once

#include <pqxx/pqxx>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/errors.h"
#include "db/pool.h"
#include "db/sql.h"
#include "google/protobuf/message.h"

namespace hotel::api {

// Adds a violation for a malformed request_id (empty is fine: no idempotency).
void CheckRequestId(absl::string_view request_id, FieldErrors& errors);
// Stable fingerprint of a request message, stored with its request_id so that reusing the id for
// another request is detected.
std::string RequestFingerprint(const google::protobuf::Message& request);
// The end of an idempotent write's validation: request_id is checked with the other fields, then
// the field errors are the answer, or out with its request_id and request_hash set.
template <typename Request, typename Write>
absl::StatusOr<Write> WithRequestId(const Request& request, Write out, FieldErrors& errors) {
  CheckRequestId(request.request_id(), errors);
  if (!errors.empty()) return errors.ToStatus();
  out.request_id = request.request_id();
  out.request_hash = RequestFingerprint(request);
  return out;
}
// FAILED_PRECONDITION, reason REQUEST_ID_REUSED.
absl::Status RequestIdReusedError();

// Looks up the record a request_id created, with find_statement (the area's
// sql/find_*_request.sql: $1 request id → id, request_hash): OK with its id in *id (empty when
// none), or REQUEST_ID_REUSED when the id was used for another request.
absl::Status FindRequest(db::Session& session, pqxx::transaction_base& txn, absl::string_view find_statement,
                         const std::string& request_id, const std::string& request_hash, std::string* id);

// What ClaimRequest found: the id is the caller's now (first, write), or an earlier request with
// the same request_id and request has written (first false; existing_id what find_statement names
// for it: the record it created, or the request id itself where the write created none).
struct Claim {
  bool first = true;
  std::string existing_id;
};

// The claim step of the claim-first algorithm: claim (the area's sql/claim_request.sql, an insert
// of the request id that returns a row unless the id is taken, ON CONFLICT DO NOTHING) runs first,
// in txn. An empty request_id claims nothing (first). When the id is taken, find_statement (as for
// FindRequest) tells by which request: the same one (first false, existing_id), another
// (REQUEST_ID_REUSED), or none any more (the claimer rolled back while the claim waited for it:
// ABORTED CONCURRENT_UPDATE, retry).
absl::StatusOr<Claim> ClaimRequest(db::Session& session, pqxx::transaction_base& txn, const db::SqlQuery& claim,
                                   absl::string_view find_statement, const std::string& request_id,
                                   const std::string& request_hash);

// What InsertOnce did: inserted a row (rows holds what the insert returned), or found the record
// an earlier request with the same request_id created (rows empty, existing_id its id).
struct Insertion {
  pqxx::result rows;
  std::string existing_id;
};

// The algorithm of an idempotent create that is one insert. The area's insert statement inserts nothing,
// rather than fail, when its request_id is taken (ON CONFLICT (request_id) DO NOTHING, which waits
// for a concurrent insert of the same id to commit or roll back) or when a reference it needs is
// missing (WHERE EXISTS): no look-up before it and no lock. Only when it inserts nothing is the
// reason looked up, in this order: the record the request_id made (find_statement, as for
// FindRequest: OK with existing_id, or REQUEST_ID_REUSED), then check_references (the NOT_FOUND of
// the missing reference), else ABORTED CONCURRENT_UPDATE (retry).
absl::StatusOr<Insertion> InsertOnce(db::Session& session, pqxx::transaction_base& txn, const db::SqlQuery& insert,
                                     absl::string_view find_statement, const std::string& request_id,
                                     const std::string& request_hash,
                                     absl::FunctionRef<absl::Status()> check_references);

// A create that is InsertOnce in a transaction of its own, for an insert that returns the new
// record's id: check_references as for InsertOnce, then load(session, txn, id) of the new record
// or of the one an earlier request with the same request_id created.
using TxnCheck = absl::FunctionRef<absl::Status(db::Session&, pqxx::transaction_base&)>;
using TxnLoad = absl::FunctionRef<absl::Status(db::Session&, pqxx::transaction_base&, const std::string& id)>;
absl::Status CreateOnce(db::ConnectionPool& pool, const db::SqlQuery& insert, absl::string_view find_statement,
                        const std::string& request_id, const std::string& request_hash, TxnCheck check_references,
                        TxnLoad load);

}  // namespace hotel::api
