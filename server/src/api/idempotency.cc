#include "api/idempotency.h"

#include <regex>

#include "absl/strings/str_cat.h"
#include "common/page_token.h"
#include "db/sql.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace hotel::api {

void CheckRequestId(absl::string_view request_id, FieldErrors& errors) {
  static const std::regex kPattern("[A-Za-z0-9._:-]{1,100}");
  if (!request_id.empty() && !std::regex_match(request_id.begin(), request_id.end(), kPattern)) {
    errors.Add("request_id", "must be 1 to 100 letters, digits, '-', '_', '.' or ':' (a UUID is a good choice)");
  }
}

std::string RequestFingerprint(const google::protobuf::Message& request) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    request.SerializeToCodedStream(&coded);
  }
  return FilterFingerprint(absl::StrCat(request.GetTypeName(), "|", bytes));
}

absl::Status RequestIdReusedError() {
  return FailedPreconditionError("REQUEST_ID_REUSED",
                                 "request_id was already used for a different request; use a new request_id");
}

absl::Status FindRequest(db::Session& session, pqxx::transaction_base& txn, absl::string_view find_statement,
                         const std::string& request_id, const std::string& request_hash, std::string* id) {
  id->clear();
  if (request_id.empty()) return absl::OkStatus();
  auto rows = session.Exec(txn, {std::string(find_statement), {request_id}});
  if (rows.empty()) return absl::OkStatus();
  if (rows[0]["request_hash"].c_str() != request_hash) return RequestIdReusedError();
  *id = rows[0]["id"].c_str();
  return absl::OkStatus();
}

namespace {
// The request_id was held by a transaction that rolled back after this one waited for it.
absl::Status ConcurrentRequestError() { return AbortedError("CONCURRENT_UPDATE", "concurrent request; retry"); }
}  // namespace

absl::StatusOr<Claim> ClaimRequest(db::Session& session, pqxx::transaction_base& txn, const db::SqlQuery& claim,
                                   absl::string_view find_statement, const std::string& request_id,
                                   const std::string& request_hash) {
  Claim out;
  if (request_id.empty() || !session.Exec(txn, claim).empty()) return out;
  if (auto s = FindRequest(session, txn, find_statement, request_id, request_hash, &out.existing_id); !s.ok()) return s;
  if (out.existing_id.empty()) return ConcurrentRequestError();
  out.first = false;
  return out;
}

absl::StatusOr<Insertion> InsertOnce(db::Session& session, pqxx::transaction_base& txn, const db::SqlQuery& insert,
                                     absl::string_view find_statement, const std::string& request_id,
                                     const std::string& request_hash,
                                     absl::FunctionRef<absl::Status()> check_references) {
  Insertion out;
  out.rows = session.Exec(txn, insert);
  if (!out.rows.empty()) return out;
  if (auto s = FindRequest(session, txn, find_statement, request_id, request_hash, &out.existing_id); !s.ok()) return s;
  if (!out.existing_id.empty()) return out;
  if (auto s = check_references(); !s.ok()) return s;
  return ConcurrentRequestError();
}

absl::Status CreateOnce(db::ConnectionPool& pool, const db::SqlQuery& insert, absl::string_view find_statement,
                        const std::string& request_id, const std::string& request_hash, TxnCheck check_references,
                        TxnLoad load) {
  return pool.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    pqxx::work txn(session.connection());
    auto created = InsertOnce(session, txn, insert, find_statement, request_id, request_hash,
                              [&] { return check_references(session, txn); });
    if (!created.ok()) return created.status();
    if (created->rows.empty()) return load(session, txn, created->existing_id);
    if (auto s = load(session, txn, created->rows[0]["id"].c_str()); !s.ok()) return s;
    session.Commit(txn);
    return absl::OkStatus();
  });
}

}  // namespace hotel::api
