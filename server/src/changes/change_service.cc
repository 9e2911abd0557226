#include "changes/change_service.h"

#include <algorithm>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "common/change_cursor.h"
#include "common/errors.h"

namespace hotel::changes {

using hotel::v1::WatchChangesResponse;

namespace {

// Changes read from the log per page while a watcher catches up from its cursor.
constexpr int kCatchUpPage = 500;

bool WriteHeartbeat(grpc::ServerWriter<WatchChangesResponse>* writer, int64_t position) {
  WatchChangesResponse heartbeat;
  heartbeat.set_cursor(EncodeChangeCursor(position));
  return writer->Write(heartbeat);
}

// Writes one change; false when the client is gone. more: another follows at once, so gRPC may
// hold this one back and send both in one go.
bool WriteChange(grpc::ServerWriter<WatchChangesResponse>* writer, const hotel::v1::Change& change, bool more) {
  WatchChangesResponse message;
  *message.mutable_change() = change;
  message.set_cursor(change.cursor());
  return writer->Write(message, more ? grpc::WriteOptions().set_buffer_hint() : grpc::WriteOptions());
}

}  // namespace

grpc::Status ChangeServiceImpl::ListChanges(grpc::ServerContext* context, const hotel::v1::ListChangesRequest* request,
                                            hotel::v1::ListChangesResponse* response) {
  return api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
    auto query = ParseListChanges(*request);
    if (!query.ok()) return query.status();
    return repository_.List(*query, response);
  });
}

grpc::Status ChangeServiceImpl::WatchChanges(grpc::ServerContext* context,
                                             const hotel::v1::WatchChangesRequest* request,
                                             grpc::ServerWriter<WatchChangesResponse>* writer) {
  return api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
    auto query = ParseWatchChanges(*request);
    if (!query.ok()) return query.status();
    return Watch(context, *query, writer);
  });
}

absl::Status ChangeServiceImpl::Watch(grpc::ServerContext* context, const ChangeQuery& query,
                                      grpc::ServerWriter<WatchChangesResponse>* writer) {
  // Subscribe first: from here on the hub queues every change after start(); the log supplies
  // what lies between the cursor and start().
  auto subscription = hub_.Subscribe(
      query.filter, [context] { context->TryCancel(); }, [context] { return context->IsCancelled(); });
  if (!subscription.ok()) return subscription.status();
  absl::Cleanup unsubscribe = [&] { hub_.Unsubscribe(*subscription); };
  const int64_t start = (*subscription)->start();
  int64_t cursor = query.after.value_or(start);
  if (cursor > start) {
    // Past this server's position: valid only if the log handed it out (another replica may be
    // ahead); a cursor from before a restore to an earlier point must not skip the new changes.
    auto page = repository_.Read(cursor, cursor, query.filter, 0, false);
    if (!page.ok()) return page.status();
    if (auto s = CheckCursorKept(cursor, page->pruned_through, page->after_known); !s.ok()) return s;
  }

  bool first_page = true;
  while (cursor < start) {
    auto page = repository_.Read(cursor, start, query.filter, kCatchUpPage, query.full);
    if (!page.ok()) return page.status();
    if (auto s = CheckCursorKept(cursor, page->pruned_through, page->after_known); !s.ok()) return s;
    if (first_page && !WriteHeartbeat(writer, cursor)) return absl::OkStatus();
    first_page = false;
    for (size_t i = 0; i < page->changes.size(); ++i) {
      hotel::v1::Change change;
      if (auto s = ToChangeProto(page->changes[i], query.full, &change); !s.ok()) return s;
      if (!WriteChange(writer, change, i + 1 < page->changes.size())) return absl::OkStatus();  // the client left
      cursor = page->changes[i].seq;
    }
    if (static_cast<int>(page->changes.size()) < kCatchUpPage) cursor = std::max(cursor, start);
    if (context->IsCancelled()) return absl::CancelledError("the client cancelled the watch");
  }
  // The first message comes at once, so clients (and the gateway) know the watch is established.
  if (first_page && !WriteHeartbeat(writer, cursor)) return absl::OkStatus();

  std::vector<SharedChange> changes;
  while (true) {
    int64_t scanned = cursor;
    absl::Status next = (*subscription)->Next(heartbeat_interval_, &changes, &scanned);
    if (context->IsCancelled()) return absl::CancelledError("the client cancelled the watch");
    if (absl::IsResourceExhausted(next)) {
      return ResourceExhaustedError("WATCHER_TOO_SLOW",
                                    absl::StrCat(next.message(), " (", EncodeChangeCursor(cursor), ")"));
    }
    if (!next.ok()) return next;
    for (size_t i = 0; i < changes.size(); ++i) {
      if (changes[i]->seq <= cursor) continue;  // already sent from the log
      if (!WriteChange(writer, query.full ? changes[i]->full : changes[i]->basic, i + 1 < changes.size())) {
        return absl::OkStatus();
      }
      cursor = changes[i]->seq;
    }
    if (changes.empty()) {
      // A bookmark: nothing matched up to scanned, so resuming from it skips nothing.
      cursor = std::max(cursor, scanned);
      if (!WriteHeartbeat(writer, cursor)) return absl::OkStatus();
    }
  }
}

}  // namespace hotel::changes
