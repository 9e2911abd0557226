#include "blocks/block_transitions.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "sql/blocks.h"

namespace hotel::blocks {

absl::StatusOr<int64_t> RoomBlockTransitions::ApplyOnce(absl::Time at) {
  int64_t changed = 0;
  // kRead: the pass is one transaction, so running it again on a fresh connection is safe.
  absl::Status status = pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    changed = session
                  .Exec(txn, {std::string(sql::blocks::kApplyTransitions),
                              {absl::StrCat(absl::ToUnixMicros(at))}})[0]["changed"]
                  .as<int64_t>();
    txn.commit();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return changed;
}

}  // namespace hotel::blocks
