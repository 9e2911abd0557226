#include "webhooks/webhook_repository.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "api/paging.h"
#include "common/change_cursor.h"
#include "common/errors.h"
#include "db/sql.h"
#include "db/timestamps.h"
#include "google/protobuf/util/message_differencer.h"
#include "sql/webhooks.h"
#include "webhooks/webhook_message.h"
#include "webhooks/webhook_sql.h"

namespace hotel::webhooks {

using hotel::v1::Webhook;

namespace {

std::vector<std::string> UpdateParams(const std::string& id, const WebhookUpdatePlan& plan) {
  const Webhook& w = plan.updated;
  return {id,
          w.url(),
          db::TextArrayLiteral(plan.selection.filter.resource_types),
          plan.selection.filter.property_id,
          FullViewColumn(plan.selection.view),
          StateName(w.state()),
          w.disabled_reason(),
          plan.resumed ? "true" : "false",
          DiffViewColumn(plan.selection.view),
          plan.selection.filter.room_changes};
}

// The subscription as the update read it compared with the row now, except its cursor: senders
// advance the cursor continually without touching what an edit decides from (a resume's expiry
// check only gets safer as it moves forward), so a delivery between the read and the lock is not
// a conflict. Every other change (an edit, a rotation, a replay, a disable) is.
bool SameAsRead(const Webhook& read, const Webhook& now) {
  Webhook read_settings = read;
  Webhook now_settings = now;
  read_settings.clear_cursor();
  now_settings.clear_cursor();
  return google::protobuf::util::MessageDifferencer::Equals(read_settings, now_settings);
}

}  // namespace

namespace {

// Text PostgreSQL accepts: valid UTF-8, no NUL.
std::string Storable(absl::string_view bytes) {
  std::string text = ValidUtf8(bytes);
  text.erase(std::remove(text.begin(), text.end(), '\0'), text.end());
  return text;
}

std::string Micros(absl::Time t) { return absl::StrCat(absl::ToUnixMicros(t)); }

}  // namespace

absl::Status WebhookNotFound(const std::string& id) {
  return NotFoundError("WEBHOOK_NOT_FOUND", ValidUtf8(absl::StrCat("webhook ", id, " does not exist")));
}

absl::StatusOr<int64_t> WebhookRepository::StartPosition(const std::optional<int64_t>& after) {
  if (!after) return change_log_.Head();
  auto page = change_log_.Read(*after, *after, {}, 1, hotel::v1::CHANGE_VIEW_BASIC);
  if (!page.ok()) return page.status();
  if (auto s = changes::CheckCursorKept(*after, page->pruned_through); !s.ok()) return s;
  if (*after > page->head)
    return InvalidField("after", "is ahead of the change feed: not a cursor it issued", "INVALID_CURSOR");
  return *after;
}

absl::Status WebhookRepository::Create(const NewWebhook& webhook, const std::string& secret, int64_t start,
                                       Webhook* out) {
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    pqxx::work txn(session.connection());
    auto rows = session.Exec(
        txn, {std::string(sql::webhooks::kInsertWebhook),
              {webhook.url, db::TextArrayLiteral(webhook.selection.filter.resource_types),
               webhook.selection.filter.property_id, FullViewColumn(webhook.selection.view), secret,
               absl::StrCat(start), DiffViewColumn(webhook.selection.view), webhook.selection.filter.room_changes}});
    session.Commit(txn);
    ReadWebhook(rows[0], out);
    out->set_secret(secret);
    return absl::OkStatus();
  });
}

absl::Status WebhookRepository::Get(const std::string& id, Webhook* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    pqxx::read_transaction txn(session.connection());
    auto rows = session.Exec(txn, {std::string(sql::webhooks::kSelectWebhook), {id}});
    if (rows.empty()) return WebhookNotFound(id);
    ReadWebhook(rows[0], out);
    return absl::OkStatus();
  });
}

absl::Status WebhookRepository::List(const WebhookListQuery& query, hotel::v1::ListWebhooksResponse* out) {
  const bool first = query.after.empty();
  const db::SqlQuery sql{std::string(sql::webhooks::kListWebhooks),
                         {first ? "" : query.after[0], first ? "" : query.after[1], absl::StrCat(query.page_size + 1)}};
  out->Clear();
  return api::ListPage(pool_, sql, query.page_size, "webhooks", Fingerprint(query), "", "", out, ReadWebhook,
                       [](const pqxx::row& row) {
                         return std::vector<std::string>{row[webhook_columns::kCreatedMicros].c_str(),
                                                         row[webhook_columns::kId].c_str()};
                       });
}

absl::Status WebhookRepository::Update(const Webhook& current, const WebhookUpdatePlan& plan, Webhook* out) {
  if (plan.resumed) {
    auto page = change_log_.Read(0, 0, {}, 1, hotel::v1::CHANGE_VIEW_BASIC);
    if (!page.ok()) return page.status();
    auto cursor = DecodeChangeCursor("cursor", current.cursor());
    if (!cursor.ok()) return cursor.status();
    if (*cursor < page->pruned_through) {
      return FailedPreconditionError(
          "CURSOR_EXPIRED",
          "the webhook's cursor is older than the change log keeps (its retention): delete it and subscribe again "
          "from now, or from a cursor of a fresh list");
    }
  }
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    pqxx::work txn(session.connection());
    auto locked = session.Exec(txn, {std::string(sql::webhooks::kSelectWebhookForUpdate), {current.id()}});
    if (locked.empty()) return WebhookNotFound(current.id());
    Webhook now;
    ReadWebhook(locked[0], &now);
    if (!SameAsRead(current, now)) {
      return AbortedError("CONCURRENT_UPDATE", "the webhook changed while it was updated: read it and try again");
    }
    if (!plan.changed) {
      *out = now;
      return absl::OkStatus();
    }
    auto rows = session.Exec(txn, {std::string(sql::webhooks::kUpdateWebhook), UpdateParams(current.id(), plan)});
    session.Commit(txn);
    ReadWebhook(rows[0], out);
    return absl::OkStatus();
  });
}

absl::Status WebhookRepository::Delete(const std::string& id) {
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    pqxx::work txn(session.connection());
    auto rows = session.Exec(txn, {std::string(sql::webhooks::kDeleteWebhook), {id}});
    if (rows.empty()) return WebhookNotFound(id);
    session.Commit(txn);
    return absl::OkStatus();
  });
}

absl::Status WebhookRepository::ListDeliveries(const DeliveryListQuery& query,
                                               hotel::v1::ListWebhookDeliveriesResponse* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    out->Clear();
    pqxx::read_transaction txn(session.connection());
    if (session.Exec(txn, {std::string(sql::webhooks::kSelectWebhook), {query.webhook_id}}).empty()) {
      return WebhookNotFound(query.webhook_id);
    }
    auto rows = session.Exec(txn, {std::string(sql::webhooks::kListWebhookDeliveries),
                                   {query.webhook_id, query.failures_only ? "true" : "false",
                                    query.after.empty() ? "" : query.after[0], absl::StrCat(query.page_size + 1)}});
    api::FillPage(rows, query.page_size, "webhook_deliveries", Fingerprint(query), out, ReadDelivery,
                  [](const pqxx::row& row) { return std::vector<std::string>{row[delivery_columns::kId].c_str()}; });
    return absl::OkStatus();
  });
}

absl::Status WebhookRepository::RotateSecret(const std::string& id, const std::string& secret, absl::Duration grace,
                                             Webhook* out) {
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    pqxx::work txn(session.connection());
    auto rows = session.Exec(txn, {std::string(sql::webhooks::kRotateWebhookSecret),
                                   {id, secret, absl::StrCat(absl::ToInt64Milliseconds(grace))}});
    if (rows.empty()) return WebhookNotFound(id);
    session.Commit(txn);
    ReadWebhook(rows[0], out);
    out->set_secret(secret);
    return absl::OkStatus();
  });
}

absl::Status WebhookRepository::Replay(const std::string& id, int64_t after, Webhook* out) {
  auto start = StartPosition(after);
  if (!start.ok()) return start.status();
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    pqxx::work txn(session.connection());
    auto rows = session.Exec(txn, {std::string(sql::webhooks::kReplayWebhook), {id, absl::StrCat(*start)}});
    if (rows.empty()) return WebhookNotFound(id);
    session.Commit(txn);
    ReadWebhook(rows[0], out);
    return absl::OkStatus();
  });
}

absl::StatusOr<LoggedBatch> WebhookRepository::LoggedDelivery(const std::string& id, int64_t delivery_id) {
  LoggedBatch batch;
  auto status = pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    pqxx::read_transaction txn(session.connection());
    auto rows =
        session.Exec(txn, {std::string(sql::webhooks::kSelectWebhookDelivery), {id, absl::StrCat(delivery_id)}});
    if (rows.empty()) {
      if (session.Exec(txn, {std::string(sql::webhooks::kSelectWebhook), {id}}).empty()) return WebhookNotFound(id);
      return NotFoundError("WEBHOOK_DELIVERY_NOT_FOUND",
                           absl::StrCat("webhook ", id, " has no delivery ", delivery_id, " in its log"));
    }
    const auto& row = rows[0];
    batch.lease.id = id;
    batch.lease.url = row["url"].as<std::string>();
    batch.lease.secret = row["secret"].as<std::string>();
    batch.lease.previous_secret = row["previous_secret"].is_null() ? "" : row["previous_secret"].as<std::string>();
    batch.lease.selection.filter.resource_types = db::ParseTextArray(row["resource_types"].as<std::string>());
    batch.lease.selection.filter.property_id = row["property_id"].as<std::string>();
    batch.lease.selection.filter.room_changes = row["room_changes"].as<std::string>();
    batch.lease.selection.view = StoredView(row["full_view"].as<bool>(), row["diff_view"]);
    batch.message_id = row["batch_id"].as<std::string>();
    batch.after = row["cursor_after"].as<int64_t>();
    batch.through = row["cursor_through"].as<int64_t>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return batch;
}

absl::StatusOr<std::vector<changes::ChangeRecord>> WebhookRepository::ReadRange(const LoggedBatch& batch) {
  auto page = change_log_.Read(batch.after, batch.through, batch.lease.selection.filter, kMaxResendChanges,
                               batch.lease.selection.view);
  if (!page.ok()) return page.status();
  if (auto s = changes::CheckCursorKept(batch.after, page->pruned_through); !s.ok()) return s;
  return std::move(page->changes);
}

absl::Status WebhookRepository::LogResend(const LoggedBatch& batch, const AttemptRecord& attempt, bool succeeded,
                                          hotel::v1::WebhookDelivery* out) {
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    pqxx::work txn(session.connection());
    auto rows =
        session.Exec(txn, {std::string(sql::webhooks::kInsertWebhookDelivery),
                           {batch.lease.id, batch.message_id, Micros(attempt.at), absl::StrCat(attempt.duration_ms),
                            absl::StrCat(attempt.status), attempt.error, Storable(attempt.response),
                            absl::StrCat(batch.after), absl::StrCat(batch.through), succeeded ? "true" : "false"}});
    session.Commit(txn);
    ReadDelivery(rows[0], out);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::string> WebhookRepository::Secret(const std::string& id) {
  std::string secret;
  auto status = pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    pqxx::read_transaction txn(session.connection());
    auto rows = session.Exec(txn, {std::string(sql::webhooks::kSelectWebhookSecret), {id}});
    if (rows.empty()) return WebhookNotFound(id);
    secret = rows[0][0].as<std::string>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return secret;
}

absl::StatusOr<std::optional<Lease>> WebhookRepository::Claim(const std::string& owner, absl::Duration lease) {
  std::optional<Lease> claimed;
  auto status = pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    claimed.reset();
    // One UPDATE, atomic on its own: no transaction around it (an idle sender's look is one round
    // trip, not BEGIN, UPDATE and COMMIT). A claim whose answer was lost just expires.
    pqxx::nontransaction txn(session.connection());
    auto rows = session.Exec(
        txn, {std::string(sql::webhooks::kClaimWebhook), {owner, absl::StrCat(absl::ToInt64Milliseconds(lease))}});
    if (rows.empty()) return absl::OkStatus();
    const auto& row = rows[0];
    Lease l;
    l.id = row["id"].as<std::string>();
    l.token = row["lease_token"].as<int64_t>();
    l.url = row["url"].as<std::string>();
    l.secret = row["secret"].as<std::string>();
    l.previous_secret = row["previous_secret"].is_null() ? "" : row["previous_secret"].as<std::string>();
    l.selection.filter.resource_types = db::ParseTextArray(row["resource_types"].as<std::string>());
    l.selection.filter.property_id = row["property_id"].as<std::string>();
    l.selection.filter.room_changes = row["room_changes"].as<std::string>();
    l.selection.view = StoredView(row["full_view"].as<bool>(), row["diff_view"]);
    l.delivered_through = row["delivered_through"].as<int64_t>();
    if (!row["batch_id"].is_null()) {
      l.batch = FrozenBatch{row["batch_id"].as<std::string>(), row["batch_through"].as<int64_t>(),
                            row["batch_body"].as<std::string>(), row["batch_attempts"].as<int>()};
    }
    claimed = std::move(l);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return claimed;
}

absl::StatusOr<std::vector<changes::ChangeRecord>> WebhookRepository::ReadChanges(const Lease& lease, int limit,
                                                                                  int64_t* scanned) {
  auto page = change_log_.Read(lease.delivered_through, INT64_MAX, lease.selection.filter, limit, lease.selection.view);
  if (!page.ok()) return page.status();
  if (auto s = changes::CheckCursorKept(lease.delivered_through, page->pruned_through); !s.ok()) return s;
  *scanned = static_cast<int>(page->changes.size()) < limit ? page->head : page->changes.back().seq;
  return std::move(page->changes);
}

namespace {

// A fenced write: true when it changed the row (the lease is still ours).
absl::StatusOr<bool> Fenced(db::ConnectionPool& pool, const std::string& statement, std::vector<std::string> params) {
  bool done = false;
  auto status = pool.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    pqxx::work txn(session.connection());
    auto rows = session.Exec(txn, {statement, params});
    session.Commit(txn);
    done = !rows.empty();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return done;
}

}  // namespace

absl::StatusOr<bool> WebhookRepository::FreezeBatch(const Lease& lease, const FrozenBatch& batch) {
  return Fenced(pool_, std::string(sql::webhooks::kFreezeWebhookBatch),
                {lease.id, absl::StrCat(lease.token), batch.id, absl::StrCat(batch.through), batch.body});
}

absl::StatusOr<bool> WebhookRepository::Skip(const Lease& lease, int64_t through) {
  return Fenced(pool_, std::string(sql::webhooks::kSkipWebhookChanges),
                {lease.id, absl::StrCat(lease.token), absl::StrCat(through)});
}

absl::StatusOr<bool> WebhookRepository::RecordSuccess(const Lease& lease, const AttemptRecord& attempt) {
  return Fenced(pool_, std::string(sql::webhooks::kRecordWebhookSuccess),
                {lease.id, absl::StrCat(lease.token), lease.batch->id, absl::StrCat(attempt.number), Micros(attempt.at),
                 absl::StrCat(attempt.duration_ms), absl::StrCat(attempt.status), Storable(attempt.response),
                 absl::StrCat(lease.delivered_through)});
}

absl::StatusOr<bool> WebhookRepository::RecordFailure(const Lease& lease, const AttemptRecord& attempt,
                                                      absl::Duration retry_in, bool disable,
                                                      const std::string& reason) {
  return Fenced(
      pool_, std::string(sql::webhooks::kRecordWebhookFailure),
      {lease.id, absl::StrCat(lease.token), lease.batch->id, absl::StrCat(attempt.number), Micros(attempt.at),
       absl::StrCat(attempt.duration_ms), absl::StrCat(attempt.status), attempt.error, Storable(attempt.response),
       absl::StrCat(absl::ToInt64Milliseconds(retry_in)), disable ? "true" : "false", Storable(reason),
       absl::StrCat(lease.delivered_through), absl::StrCat(lease.batch->through)});
}

absl::StatusOr<bool> WebhookRepository::Disable(const Lease& lease, const std::string& reason) {
  return Fenced(pool_, std::string(sql::webhooks::kDisableWebhook), {lease.id, absl::StrCat(lease.token), reason});
}

absl::StatusOr<std::vector<WebhookStat>> WebhookRepository::Stats() {
  std::vector<WebhookStat> stats;
  auto status = pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    stats.clear();
    pqxx::read_transaction txn(session.connection());
    for (const auto& row : session.Exec(txn, {std::string(sql::webhooks::kWebhookStats), {}})) {
      stats.push_back({row["id"].as<std::string>(), row["state"].as<std::string>(), row["lag_seconds"].as<double>()});
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return stats;
}

absl::Status WebhookRepository::Release(const Lease& lease) {
  return Fenced(pool_, std::string(sql::webhooks::kReleaseWebhook), {lease.id, absl::StrCat(lease.token)}).status();
}

}  // namespace hotel::webhooks
