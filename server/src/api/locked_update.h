// An update of one stored resource in one transaction, as every PATCH writes it: lock the row,
// read the resource, plan the update (mask, values, etag), write it when it changes, and answer
// the resource as stored. The plan is an api::UpdatePlan (or derives from one).
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/errors.h"
#include "db/pool.h"
#include "db/sql.h"
#include "sql/db.h"

namespace hotel::api {

// lock returns no row when the resource (or what owns it) does not exist: NOT_FOUND
// not_found_reason with not_found_message. The plan's actor is the transaction's (the change
// feed's actor); nothing is written when the plan changes nothing.
template <typename Resource, typename Plan>
absl::Status RunLockedUpdate(
    db::ConnectionPool& pool, const db::SqlQuery& lock, const std::string& not_found_reason,
    const std::string& not_found_message,
    const std::function<absl::Status(db::Session&, pqxx::transaction_base&, Resource*)>& read,
    const std::function<absl::StatusOr<Plan>(const Resource&)>& plan_update,
    const std::function<absl::Status(db::Session&, pqxx::transaction_base&, const Plan&)>& write, Resource* out) {
  return pool.Run(db::Access::kWrite, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    if (session.Exec(txn, lock).empty()) return NotFoundError(not_found_reason, not_found_message);
    Resource current;
    if (auto s = read(session, txn, &current); !s.ok()) return s;
    auto plan = plan_update(current);
    if (!plan.ok()) return plan.status();
    if (plan->changed) {
      session.Exec(txn, {std::string(sql::db::kSetActor), {plan->actor}});
      if (auto s = write(session, txn, *plan); !s.ok()) return s;
    }
    out->Clear();
    if (auto s = read(session, txn, out); !s.ok()) return s;
    session.Commit(txn);
    return absl::OkStatus();
  });
}

}  // namespace hotel::api
