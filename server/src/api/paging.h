// Keyset paging of the list requests (AIP-158): page_size and page_token in, a query's `after`
// key out. A token is bound to its list and to the fingerprint of the query's filters.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <pqxx/pqxx>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "api/identifiers.h"
#include "api/request_fields.h"
#include "common/errors.h"
#include "common/page_token.h"
#include "db/existence.h"
#include "db/pool.h"
#include "db/sql.h"

namespace hotel::api {

// The shape of a list's page key: how many values, and which ones hold a microsecond timestamp
// or a UUID, so a forged token can never make a statement fail in PostgreSQL.
// A constructor rather than an aggregate, so a shape given by its size alone ({1}) compiles without
// -Wmissing-field-initializers.
struct PageKeyShape {
  PageKeyShape(size_t size, std::optional<size_t> micros_at = std::nullopt,
               std::optional<size_t> uuid_at = std::nullopt)
      : size(size), micros_at(micros_at), uuid_at(uuid_at) {}
  size_t size;
  std::optional<size_t> micros_at;
  std::optional<size_t> uuid_at;
};

// How a bad page_size is reported: with the request's other field errors (the maintenance lists),
// or alone before them (the room data lists, whose 1.0.0 error bodies say only that).
enum class PageSizeError { kWithFieldErrors, kAlone };

// Validates the list request's page_size and page_token against fingerprint (the area's
// Fingerprint of query's filters) and sets query.page_size and query.after.
template <typename ListRequest, typename Query>
absl::Status ApplyPaging(const ListRequest& request, absl::string_view list, const PageKeyShape& key,
                         const std::string& fingerprint, Query& query, FieldErrors& errors,
                         PageSizeError page_size_error = PageSizeError::kWithFieldErrors) {
  auto size = EffectivePageSize(request.page_size());
  if (!size.ok() && page_size_error == PageSizeError::kAlone) return size.status();
  if (!size.ok()) Collect(size.status(), errors);
  if (!errors.empty()) return errors.ToStatus();
  query.page_size = *size;
  auto token = DecodePageToken(request.page_token(), list, fingerprint);
  if (!token.ok()) return token.status();
  if (!token->key.empty()) {
    int64_t micros = 0;
    if (token->key.size() != key.size || (key.micros_at && !absl::SimpleAtoi(token->key[*key.micros_at], &micros)) ||
        (key.uuid_at && !IsUuid(token->key[*key.uuid_at]))) {
      return InvalidPageToken();
    }
  }
  query.after = std::move(token->key);
  return absl::OkStatus();
}

// Fills a list's page from rows fetched with LIMIT page_size + 1 (db::Limit): read(row, out->add_data())
// for each of the first page_size rows; the extra row only means "more", so the page's last row's
// key(row) becomes next_page_token, bound to list and the query's fingerprint.
template <typename Response, typename Read, typename Key>
void FillPage(const pqxx::result& rows, int page_size, absl::string_view list, std::string fingerprint, Response* out,
              Read read, Key key) {
  const int n = std::min<int>(rows.size(), page_size);
  for (int i = 0; i < n; ++i) read(rows[i], out->add_data());
  if (static_cast<int>(rows.size()) > page_size) {
    out->set_next_page_token(EncodePageToken({std::string(list), std::move(fingerprint), key(rows[n - 1])}));
  }
}

// A list's page: runs the list statement sql and fills out (FillPage, with the area's fingerprint
// of the query's filters). A list scoped to a property (and a room in it; "" for none) answers
// NOT_FOUND when they do not exist; only an empty page needs that look-up.
template <typename Response, typename Read, typename Key>
absl::Status ListPage(db::ConnectionPool& pool, const db::SqlQuery& sql, int page_size, absl::string_view list,
                      std::string fingerprint, const std::string& property_id, const std::string& room_number,
                      Response* out, Read read, Key key) {
  return pool.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    pqxx::nontransaction txn(session.connection());
    auto rows = session.Exec(txn, sql);
    if (rows.empty() && !property_id.empty()) {
      if (auto s = db::CheckListScopeExists(session, txn, property_id, room_number); !s.ok()) return s;
    }
    FillPage(rows, page_size, list, std::move(fingerprint), out, read, key);
    return absl::OkStatus();
  });
}

// Canonical forms of optional filters in a fingerprint ("-" when unset).
inline std::string OptionalText(const std::optional<std::string>& v) { return v.value_or("-"); }
inline std::string OptionalBool(const std::optional<bool>& v) { return v ? (*v ? "true" : "false") : "-"; }

}  // namespace hotel::api
