#include "images/image_file_repository.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sql/images.h"

namespace hotel::images {
namespace {

std::string Seconds(absl::Duration d) { return absl::StrCat(absl::ToDoubleSeconds(d)); }

}  // namespace

absl::Status ImageFileRepository::Reserve(const std::vector<std::string>& keys) {
  // Keys are content-addressed (img/<hex>/<hex>.<ext>): nothing in them needs quoting in an array
  // literal. Sorted, so that two uploads sharing files take their locks in one order.
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  const std::string array = absl::StrCat("{", absl::StrJoin(sorted, ","), "}");
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    session.Exec(txn, {std::string(sql::images::kReserveFileKeys), {array}});
    session.Commit(txn);
    return absl::OkStatus();
  });
}

absl::StatusOr<CollectionResult> ImageFileRepository::Collect(
    absl::Duration grace, int limit, const std::function<absl::Status(const std::string& key)>& remove) {
  CollectionResult result;
  std::vector<std::string> candidates;
  absl::Status status = pool_.Run(db::Access::kWrite, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    result.forgotten =
        session.Exec(txn, {std::string(sql::images::kForgetLiveReleases), {Seconds(grace)}}).affected_rows();
    candidates.clear();
    for (const auto& row : session.Exec(
             txn, {std::string(sql::images::kSelectCollectableFiles), {Seconds(grace), absl::StrCat(limit)}})) {
      candidates.push_back(row["storage_key"].c_str());
    }
    session.Commit(txn);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  for (const std::string& key : candidates) {
    status = pool_.Run(db::Access::kWrite, [&](db::Session& session) {
      pqxx::work txn(session.connection());
      // Checked again under the key's lock: an upload may have reserved it, or an image used it, since.
      if (session.Exec(txn, {std::string(sql::images::kLockCollectableFile), {key, Seconds(grace)}}).empty()) {
        return absl::OkStatus();
      }
      if (auto s = remove(key); !s.ok()) return s;
      session.Exec(txn, {std::string(sql::images::kForgetReleasedFile), {key}});
      session.Commit(txn);
      ++result.deleted;
      return absl::OkStatus();
    });
    if (!status.ok()) return status;
  }
  return result;
}

}  // namespace hotel::images
